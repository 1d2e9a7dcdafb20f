"""Hardware catalog: sourced device data and the loader that turns it into typed records."""
from .loader import CatalogError
from .records import DeviceType, Figure, GpuSpec, PortGroup, Price, Psu, Source
from .registry import Catalog, UnknownDeviceError, default_catalog, load_catalog

__all__ = [
    "Catalog",
    "CatalogError",
    "DeviceType",
    "Figure",
    "GpuSpec",
    "PortGroup",
    "Price",
    "Psu",
    "Source",
    "UnknownDeviceError",
    "default_catalog",
    "load_catalog",
]
