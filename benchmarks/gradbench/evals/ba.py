"""Bundle adjustment (GradBench eval ``ba``, from ADBench).

A camera is 11 numbers: Rodrigues rotation (3), centre (3), focal length, principal point (2) and
radial distortion (2).  Each observation j of point ``X[obs[j, 1]]`` by camera ``cams[obs[j, 0]]``
has a reprojection error ``w_j (project(cam, X) - feat_j)`` and a weight error ``1 - w_j^2``.
"""

import numpy as np


def rodrigues_rotate_point(rot, X):
    """Rotate ``X`` by the angle-axis vector ``rot``."""
    sqtheta = np.sum(rot * rot)
    if sqtheta != 0.0:
        theta = np.sqrt(sqtheta)
        costheta = np.cos(theta)
        sintheta = np.sin(theta)
        w = rot / theta
        return X * costheta + np.cross(w, X) * sintheta + w * (np.dot(w, X) * (1.0 - costheta))
    return X + np.cross(rot, X)


def radial_distort(rad, proj):
    """Apply the radial distortion ``1 + k1 r^2 + k2 r^4``."""
    rsq = np.sum(proj * proj)
    return proj * (1.0 + rad[0] * rsq + rad[1] * rsq * rsq)


def project(cam, X):
    """Pixel coordinates of the 3-D point ``X`` seen by ``cam``."""
    Xcam = rodrigues_rotate_point(cam[0:3], X - cam[3:6])
    distorted = radial_distort(cam[9:11], Xcam[0:2] / Xcam[2])
    return distorted * cam[6] + cam[7:9]


def reproj_err(cam, X, w, feat):
    """The weighted reprojection error of one observation (2 numbers)."""
    return w * (project(cam, X) - feat)


def w_err(w):
    """The weight error of one observation."""
    return 1.0 - w * w


def objective(cams, X, w, obs, feats):
    """All reprojection errors (p, 2) and weight errors (p,)."""
    p = len(w)
    errs = np.empty((p, 2))
    werrs = np.empty(p)
    for j in range(p):
        errs[j] = reproj_err(cams[obs[j, 0]], X[obs[j, 1]], w[j], feats[j])
        werrs[j] = w_err(w[j])
    return errs, werrs


# The observations batched: row j of every array below is observation j (JAX's tool writes the one
# observation above and lets ``jax.vmap`` batch it; a NumPy user writes the batch).  The branch on a
# zero rotation becomes ``np.where``, with the angle of a zero rotation taken as 1 so that neither
# side divides by zero.


def rodrigues_rotate_points(rot, X):
    """Each row of ``X`` rotated by the angle-axis vector in the same row of ``rot``."""
    sqtheta = np.sum(rot * rot, axis=1)
    turned = sqtheta != 0.0
    theta = np.sqrt(np.where(turned, sqtheta, 1.0))[:, None]
    costheta = np.cos(theta)
    w = rot / theta
    along = np.sum(w * X, axis=1)[:, None]
    rotated = X * costheta + np.cross(w, X) * np.sin(theta) + w * (along * (1.0 - costheta))
    return np.where(turned[:, None], rotated, X + np.cross(rot, X))


def project_all(cams, X):
    """Pixel coordinates of each row of ``X`` seen by the camera in the same row of ``cams``."""
    Xcam = rodrigues_rotate_points(cams[:, 0:3], X - cams[:, 3:6])
    proj = Xcam[:, 0:2] / Xcam[:, 2:3]
    rsq = np.sum(proj * proj, axis=1)[:, None]
    distorted = proj * (1.0 + cams[:, 9:10] * rsq + cams[:, 10:11] * rsq * rsq)
    return distorted * cams[:, 6:7] + cams[:, 7:9]


def reproj_errs(cams, X, w, feats):
    """The weighted reprojection error of every observation (p, 2), from its camera and point rows."""
    return w[:, None] * (project_all(cams, X) - feats)


def w_errs(w):
    """The weight error of every observation."""
    return 1.0 - w * w


def objective_batched(cams, X, w, obs, feats):
    """``objective`` on the batched functions."""
    return reproj_errs(cams[obs[:, 0]], X[obs[:, 1]], w, feats), w_errs(w)
