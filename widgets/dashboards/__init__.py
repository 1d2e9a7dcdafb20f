"""The read-outs of the analysis: dashboards, findings, the inspector and the compare dialog."""
