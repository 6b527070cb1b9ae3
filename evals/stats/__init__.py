"""Statistics shared by the stages: one bootstrap (seed, resamples) for every interval.
"""
