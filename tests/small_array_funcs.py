"""Functions whose adjoints add small arrays (issues 35 and 36): a value read in both branches of an
``if`` (ba's rodrigues), a sum reset and added in a loop (particles' force), numbers read from an
array a loop makes (particles' d[0])."""

import numpy as np


def rotate(rot, X):
    sq = np.sum(rot * rot)
    if sq != 0.0:
        theta = np.sqrt(sq)
        w = rot / theta
        return X * np.cos(theta) + np.cross(w, X) * np.sin(theta) + w * (np.dot(w, X) * (1.0 - np.cos(theta)))
    return X + np.cross(rot, X)


def pulled(x0, centres, strengths):
    x = x0
    v = x0 * 0.0
    for t in range(5):
        force = np.zeros(2)
        for c in range(centres.shape[0]):
            d = centres[c] - x
            r2 = d[0] * d[0] + d[1] * d[1] + 0.1
            force = force + strengths[c] * d / (r2 * np.sqrt(r2))
        v = v + 0.01 * force
        x = x + 0.01 * v
    return np.sum(x * x)


def copies_in_a_loop(x, n):
    """x read three times in a loop body and once after it: its copies in the body share one accumulator."""
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            s = s + np.sum(x * x) * x[0]
        else:
            s = s + np.sum(np.sin(x))
    return s + np.sum(x)


def scattered_then_reset(w, n):
    """An adjoint reset in a loop and added to, next to a scatter_add changing another one in place."""
    acc = np.zeros(2)
    for i in range(n):
        h = w[0:2] * w[2]
        acc = acc * 0.5 + h
    return np.sum(acc * acc)


def number_copies(vol, n):
    """A number read in three places in a loop body: its copies keep their own accumulators."""
    s = 0.0
    for i in range(n):
        s = s + np.sin(vol) * i + vol * 0.5 + vol * vol
    return s


def written_entries(a, n):
    """Entries of a vector and of a matrix written in a loop, and a row: each write tapes the old value."""
    q = np.zeros(3)
    m = np.zeros((2, 3))
    s = 0.0
    for i in range(n):
        for j in range(3):
            q[j] = a[j] * q[j] + i
            m[i % 2, j] = q[j] * a[j]
        m[0] = m[1] * a
        s = s + np.sum(np.exp(q - np.max(q))) + np.sum(m * m)
    return s


def divided(x, s):
    """The adjoint of the number s in x / s: the sum of -(y / s * g), written -(sum_all(y * g) / s)."""
    y = np.sin(x) / s
    return np.sum(y * y) * s


def one_way(x, c):
    """y's adjoint added into in one way of the branch only: the other way starts it at zero itself."""
    y = x * 2.0
    w = np.sum(y * 3.0)
    if c > 0.0:
        z = np.sin(y)
    else:
        z = np.cos(x)
    return np.sum(z) + w


def calls_one_way(x, c):
    return one_way(x, c) * 2.0 + one_way(x * 0.5, -c)


def distorted(rad, proj):
    """rad's adjoint made by scatter_add between lines that make rsq's: ba's radial_distort."""
    rsq = np.sum(proj * proj)
    return np.sum(proj * (1.0 + rad[0] * rsq + rad[1] * rsq * rsq))


def broadcast_terms(x, y):
    """a has x's shape, b y's (arithmetic with numbers): their cotangents summed down to x's and y's shapes."""
    a = x * 2.0
    b = np.sin(y) * 3.0
    return np.sum((a + b) * (a - b))


def projected(cam, x):
    """ba's project's last line: the product folds into the sum past the slice made between them."""
    d = np.sin(x) * 2.0
    return np.sum(d * cam[6] + cam[7:9])


def squared_distances(points, centres):
    """kmeans' n x k x d differences: 2 * (diff * d) stays inside unbroadcast, one expression there."""
    diff = points[:, None, :] - centres[None, :, :]
    return np.sum(np.min(np.sum(diff * diff, axis=2), axis=1))
