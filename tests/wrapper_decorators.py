"""Decorators as users write them, for tests/test_wrappers.py: functools.wraps wrappers that scale the
result, that pass the call through and print, that keep state, and one with parameters of its own."""

import functools


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 2 * fn(*args, **kwargs)

    return wrapper


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        print("calling", fn.__name__)
        return fn(*args, **kwargs)

    return wrapper


def counted(fn):
    calls = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)

    return wrapper


def shifted(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(x) + x

    return wrapper


def offset(fn):
    @functools.wraps(fn)
    def wrapper(a, *rest, **kwargs):
        return fn(a, *rest, **kwargs) + 0.25 * a

    return wrapper
