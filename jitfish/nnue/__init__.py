"""NNUE evaluation: the features, the network file, the integer reference inference and its kernels.

The network is 768 -> N -> 1 with the feature transformer shared by both perspectives: each side's
accumulator is the biases plus the weights of its active features (:mod:`features`), the two are
activated (clipped ReLU, or squared clipped ReLU) and concatenated side to move first, and one output
neuron (of the output bucket the piece count picks) gives the score in centipawns for the side to move.
:mod:`format` reads and writes the quantised file; :mod:`reference` is the NumPy inference that defines
the integer arithmetic, and :mod:`inference` the Numba kernels that compute it on the engine's arrays.
The search keeps a network's accumulators ply by ply (:mod:`jitfish.search.evalstack`); UCI's
``EvalFile`` and ``Use NNUE`` select the network. Only :mod:`inference` imports Numba (the trainer's
modules do not).
"""
