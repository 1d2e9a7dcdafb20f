"""Training engine: throughput, memory, time-to-train, goodput and plan search for LLM training.

Pure functions over numpy; no Qt. Entry points:
    estimate(model, training, plan, cluster) -> Estimate
    search_plans(model, training, cluster, **fixed) -> dict (vectorised over every plan)
    best_plan(model, training, cluster, **fixed) -> (Estimate, summary)
    cluster_from_system(catalog, system_id, gpus) -> Cluster
    training_section(cluster, settings, workload) -> (dict, [Finding])
    analyze_training(ctx) -> EngineResult (the engine of ``analyze``)
"""
from .errors import TrainingError
from .estimate import Estimate, estimate
from .hardware import Cluster, cluster_from_gpu, cluster_from_project, cluster_from_system
from .models import PRESETS, ModelSpec, model_from_params, preset
from .plan import Plan, Training
from .planner import best_plan
from .search import search_plans
from .section import analyze_training, training_section


__all__ = ["TrainingError", "Estimate", "estimate", "Cluster", "cluster_from_system", "cluster_from_gpu",
           "cluster_from_project", "PRESETS", "ModelSpec", "model_from_params", "preset", "Plan", "Training",
           "best_plan", "search_plans", "training_section", "analyze_training"]
