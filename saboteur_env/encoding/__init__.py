"""The encoding: the flat action codec and the observation with named views (DESIGN 3, 4, 8)."""

from .codec import Codec, legal_indices
from .observation import ObservationEncoder

__all__ = ["Codec", "ObservationEncoder", "legal_indices"]
