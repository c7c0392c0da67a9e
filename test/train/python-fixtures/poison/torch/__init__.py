raise ImportError("torch was imported, which --dry-run must never do")
