"""The board: squares, bitboards, attack tables, positions, moves and perft."""
