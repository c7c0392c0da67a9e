raise ImportError("peft was imported, which --dry-run must never do")
