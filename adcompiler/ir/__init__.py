"""The intermediate form: the ANF equations a user function is lowered to, and the statements and
expressions of the generated program."""
