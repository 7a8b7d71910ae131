"""OpenBench (AndyGrant/OpenBench) and Jitfish: a local offline instance (:mod:`tuning.openbench.local`), the
SPSA input of the search parameters (:mod:`tuning.openbench.spsa_input`) and the client's steps with an
engine, for the benchmark and the tests (:mod:`tuning.openbench.client_steps`); docs/openbench.md.
"""
