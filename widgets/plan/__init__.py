"""The floor plan: its scene, view and items, dragging, selection, the heat map, clearance and overview layers, cable routes and the catalog palette."""
