"""The one comparison module: tolerances per dtype, NaN-strict matching, ULP distances, the error
budget against a float64 reference, and the verdict that combines them."""

from tools.engine.compare.bitwise import bitwise_equal
from tools.engine.compare.budget import BUDGET_FACTOR, ErrorBudget, error_budget
from tools.engine.compare.compare import Comparison, TensorComparison, compare_outputs, tolerance_for
from tools.engine.compare.judge import Judgement, RoundingBound, judge, needs_budget
from tools.engine.compare.spread import output_spread
from tools.engine.compare.ulp import ulp_distance

__all__ = ["BUDGET_FACTOR", "Comparison", "ErrorBudget", "Judgement", "RoundingBound", "TensorComparison", "bitwise_equal",
           "compare_outputs", "error_budget", "judge", "needs_budget", "output_spread", "tolerance_for",
           "ulp_distance"]
