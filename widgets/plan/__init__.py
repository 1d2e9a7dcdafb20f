"""The floor plan: its scene, view and items, gestures (interactions), selection, the heat map, clearance and
overview layers, cable routes and the catalog palette."""
