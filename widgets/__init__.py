"""PodPlanner's Qt user interface. Everything here may import PySide6; designer/ and catalog/ never do."""
