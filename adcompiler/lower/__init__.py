"""From parsed source to the IR: ANF lowering (with the list and NumPy lowerings), then dup insertion."""
