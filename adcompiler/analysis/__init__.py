"""What is known of a program: abstract values, activity, in-place changes."""
