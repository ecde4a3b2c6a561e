"""Operators and kernels: the operator tree, tables, types, filters and queries."""
