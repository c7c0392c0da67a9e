"""A stand-in for Pillow's Image: reads a JPEG's or PNG's size from its header and records resizes."""
