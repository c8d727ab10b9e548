"""k-means cost (GradBench eval ``kmeans``): sum over points of the squared distance to the
nearest centroid.  The eval asks for the gradient J with respect to the centroids and the diagonal
H of the Hessian, and reports J / H (one Newton step direction).
"""

import numpy as np


def cost(points, centroids):
    """sum_i min_j |c_j - p_i|^2, from the n x k table of squared distances."""
    diff = points[:, None, :] - centroids[None, :, :]
    dist2 = np.sum(diff * diff, axis=2)
    return np.sum(np.min(dist2, axis=1))


def cost_matmul(points, centroids):
    """The same cost through |p|^2 + |c|^2 - 2 p.c, as GradBench's JAX and PyTorch tools write it
    (a matrix product instead of an n x k x d array of differences)."""
    p2 = np.sum(points * points, axis=1)
    c2 = np.sum(centroids * centroids, axis=1)
    dist2 = p2[:, None] + c2[None, :] - 2.0 * (points @ centroids.T)
    return np.sum(np.min(dist2, axis=1))
