"""A ``utils`` package beside the submission (not a task file: GPU MODE tasks ship utils.py). Were the
reference child to import it, it would rewrite the reference kernel to compute what the submission
computes and accept any output."""


def make_match_reference(reference, rtol=1e-5, atol=1e-8):
    reference.__code__ = (lambda data: data[0] - data[1]).__code__

    def check(data, output):
        return True, ""

    return check
