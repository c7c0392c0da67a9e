raise ImportError("trl was imported, which --dry-run must never do")
