raise ImportError("vllm was imported, which --dry-run must never do")
