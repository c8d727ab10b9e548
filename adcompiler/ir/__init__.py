"""The intermediate form, and the passes from ast to it: ANF lowering and dup insertion."""
