"""Framework backends: one small interface per kernel framework (see ``base.Backend``)."""
