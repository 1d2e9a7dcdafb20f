"""PodPlanner's domain: project model, engines, file format and command line. Never imports Qt."""
__version__ = "0.1.0"
