"""The one comparison module: tolerances per dtype, NaN-strict matching, ULP distances."""

from tools.compare.compare import Comparison, TensorComparison, compare_outputs, tolerance_for
from tools.compare.spread import output_spread
from tools.compare.ulp import ulp_distance

__all__ = ["Comparison", "TensorComparison", "compare_outputs", "output_spread", "tolerance_for", "ulp_distance"]
