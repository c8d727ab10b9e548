"""Hand tracking (GradBench eval ``ht``, from ADBench).

A skinned hand model posed by 26 parameters ``theta`` (global rotation, global translation, and
the finger joints); the residuals are the data points minus the model's vertices they correspond
to (``simple``) or minus points inside the model's triangles at barycentric coordinates ``us``
(``complicated``).  Model arrays: ``parents`` (bones,), ``base_relatives`` and
``inverse_base_absolutes`` (bones, 4, 4), ``base_positions`` (vertices, 4, homogeneous),
``weights`` (vertices, bones), ``triangles`` (triangles, 3).
"""

import numpy as np


def angle_axis_to_rotation_matrix(angle_axis):
    """The rotation by the angle |angle_axis| about its direction (identity for a tiny angle)."""
    norm = np.sqrt(np.sum(angle_axis * angle_axis))
    if norm < 0.0001:
        return np.eye(3)
    x, y, z = angle_axis / norm
    s = np.sin(norm)
    c = np.cos(norm)
    return np.array(
        [
            [x * x + (1 - x * x) * c, x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
            [x * y * (1 - c) + z * s, y * y + (1 - y * y) * c, y * z * (1 - c) - x * s],
            [x * z * (1 - c) - y * s, z * y * (1 - c) + x * s, z * z + (1 - z * z) * c],
        ]
    )


def euler_angles_to_rotation_matrix(xzy):
    """R_z R_y R_x for the angles (x, z, y)."""
    tx, tz, ty = xzy[0], xzy[1], xzy[2]
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(tx), -np.sin(tx)], [0.0, np.sin(tx), np.cos(tx)]])
    Ry = np.array([[np.cos(ty), 0.0, np.sin(ty)], [0.0, 1.0, 0.0], [-np.sin(ty), 0.0, np.cos(ty)]])
    Rz = np.array([[np.cos(tz), -np.sin(tz), 0.0], [np.sin(tz), np.cos(tz), 0.0], [0.0, 0.0, 1.0]])
    return Rz @ Ry @ Rx


def to_pose_params(theta, n_bones):
    """The (n_bones + 3, 3) pose: global rotation, scale (ones), translation, then one row of
    angles per bone (the wrist and forearm rows stay zero)."""
    pose = np.zeros((n_bones + 3, 3))
    pose[0] = theta[0:3]
    pose[1] = np.ones(3)
    pose[2] = theta[3:6]
    i_theta = 6
    i_pose = 5
    for _ in range(5):  # fingers
        for joint in range(3):
            pose[i_pose, 0] = theta[i_theta]
            i_theta += 1
            if joint == 0:
                pose[i_pose, 1] = theta[i_theta]
                i_theta += 1
            i_pose += 1
        i_pose += 1
    return pose


def skinned_vertex_positions(pose, parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored):
    """Vertex positions (vertices, 3) of the posed, skinned hand."""
    n_bones = len(parents)
    absolutes = []
    for i in range(n_bones):
        rotation = np.eye(4)
        rotation[0:3, 0:3] = euler_angles_to_rotation_matrix(pose[3 + i])
        relative = base_relatives[i] @ rotation
        if parents[i] == -1:
            absolutes.append(relative)
        else:
            absolutes.append(absolutes[parents[i]] @ relative)
    positions = np.zeros((base_positions.shape[0], 3))
    for i in range(n_bones):
        transform = absolutes[i] @ inverse_base_absolutes[i]
        moved = base_positions @ transform.T  # (vertices, 4)
        positions = positions + weights[:, i : i + 1] * moved[:, 0:3]
    if mirrored:
        positions = positions * np.array([-1.0, 1.0, 1.0])
    R = angle_axis_to_rotation_matrix(pose[0]) * pose[1]  # column i scaled by pose[1, i]
    return positions @ R.T + pose[2]


def objective_simple(
    theta, parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored, points, correspondences
):
    """Residuals (3 per point, flattened) of the points against their corresponding vertices."""
    pose = to_pose_params(theta, len(parents))
    vertices = skinned_vertex_positions(
        pose, parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored
    )
    return (points - vertices[correspondences]).ravel()


def objective_complicated(
    theta,
    us,
    parents,
    base_relatives,
    inverse_base_absolutes,
    base_positions,
    weights,
    mirrored,
    points,
    correspondences,
    triangles,
):
    """Residuals of the points against the points of their triangles at barycentric ``us``."""
    pose = to_pose_params(theta, len(parents))
    vertices = skinned_vertex_positions(
        pose, parents, base_relatives, inverse_base_absolutes, base_positions, weights, mirrored
    )
    corners = triangles[correspondences]  # (points, 3) vertex indices
    u0 = us[:, 0:1]
    u1 = us[:, 1:2]
    hand_points = (
        u0 * vertices[corners[:, 0]] + u1 * vertices[corners[:, 1]] + (1.0 - u0 - u1) * vertices[corners[:, 2]]
    )
    return (points - hand_points).ravel()
