raise ImportError("accelerate was imported, which --dry-run must never do")
