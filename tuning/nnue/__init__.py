"""NNUE training on the CPU with PyTorch: ``data`` (feature lists, seeded batches), ``model`` (the float
network, quantising), ``train`` (Adam, checkpoints, resuming), ``check`` (float against the integer
reference), ``__main__`` (``python -m tuning.nnue train|export``).  Only ``data`` works without PyTorch."""
