"""Code that runs inside sandbox children: load a reference or a submission and run cases.

Nothing here is imported by the parent except ``tools.engine.harness.case`` (the shared ``Case`` model).
"""
