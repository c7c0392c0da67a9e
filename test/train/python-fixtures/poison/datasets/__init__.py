raise ImportError("datasets was imported, which --dry-run must never do")
