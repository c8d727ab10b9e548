"""Generated programs made smaller and more readable: copies, dead lines, single-use temporaries."""
