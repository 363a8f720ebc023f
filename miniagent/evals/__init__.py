"""Evals: running an agent over a suite of tasks and measuring it (the integrator writes this lesson)."""
