"""The front end: a function's source parsed, fenced, and its names and scopes."""
