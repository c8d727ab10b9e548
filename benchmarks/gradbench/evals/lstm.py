"""A small LSTM's loss on a character sequence (GradBench eval ``lstm``, from ADBench).

``main_params`` (2 layers, 4 b): per layer a row of weights and a row of biases for the forget,
input, output and change gates (diagonal weight matrices, ADBench's quirk); ``extra_params``
(3, b): input weights, output weights, output biases; ``state`` (2 layers, b): per layer its
hidden and cell rows; ``sequence`` (c, b): the characters as bit vectors.
"""

import numpy as np


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def lstm_model(weight, bias, hidden, cell, x):
    """One LSTM cell step: the new (hidden, cell)."""
    h = len(hidden)
    gates = np.concatenate((x, hidden, x, hidden)) * weight + bias
    forget = sigmoid(gates[0:h])
    ingate = sigmoid(gates[h : 2 * h])
    outgate = sigmoid(gates[2 * h : 3 * h])
    change = np.tanh(gates[3 * h : 4 * h])
    cell = cell * forget + ingate * change
    hidden = outgate * np.tanh(cell)
    return hidden, cell


def predict(main_params, extra_params, state, x):
    """Run every layer on the input ``x``: the prediction and the new state."""
    x = x * extra_params[0]
    new_state = []
    for i in range(0, len(state), 2):
        hidden, cell = lstm_model(main_params[i], main_params[i + 1], state[i], state[i + 1], x)
        new_state.append(hidden)
        new_state.append(cell)
        x = hidden
    return x * extra_params[1] + extra_params[2], np.stack(new_state)


def objective(main_params, extra_params, state, sequence):
    """Mean negative log-likelihood of each next character (ADBench's normaliser adds 2 to the sum)."""
    total = 0.0
    count = 0
    for t in range(len(sequence) - 1):
        ypred, state = predict(main_params, extra_params, state, sequence[t])
        ynorm = ypred - np.log(np.sum(np.exp(ypred)) + 2.0)
        total = total + np.sum(sequence[t + 1] * ynorm)
        count += len(ynorm)
    return -total / count
