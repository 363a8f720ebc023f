"""Evals: an agent measured on a suite of tasks (placeholder: the integrator writes this)."""
