"""NNUE training with PyTorch, on the CPU or a GPU: ``data`` (feature lists, seeded batches), ``model``
(the float network with its output buckets, quantising), ``train`` (Adam or AdamW, schedules,
checkpoints, resuming, the best epoch, the device), ``check`` (float against the integer reference),
``__main__`` (``python -m tuning.nnue train|export``).  Only ``data`` works without PyTorch."""
