raise ImportError("transformers was imported, which --dry-run must never do")
