"""Framework backends: one small interface per kernel framework (see ``base.Backend``); the registered
ones are found through ``registry``."""
