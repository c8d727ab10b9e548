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
