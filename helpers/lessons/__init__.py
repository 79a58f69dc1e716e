"""The modules one notebook uses: numerics (09), norm_family (10), backward (11), speed (12)."""
