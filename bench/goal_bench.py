"""Benchmark: from a training goal to ranked options (budget ``plan_goal_s`` <= 5 s).

    python -m bench goal

``podplanner plan --model llama3-405b --tokens 15e12 --days 60``: the catalog's six current systems on both fabric
technologies (12 options, 10 of them buildable), each sized by the training engine and then generated and analysed
as a design, on 2 local worker processes as the command runs on this machine class. The time includes starting the
workers; ``plan_goal_serial_s`` runs the same in this process, for the pool's speed-up.
"""
from __future__ import annotations

from .timing import best_of


def bench() -> dict:
    from catalog import default_catalog
    from designer.goal.goal import make_goal
    from designer.goal.options import plan_goal

    catalog = default_catalog()
    goal = make_goal(catalog, workload={"model": "llama3-405b", "tokens": 15e12, "precision": "bf16"}, days=60.0)
    pooled_s, options = best_of(lambda: plan_goal(goal, catalog, workers=2), runs=2)
    serial_s, _ = best_of(lambda: plan_goal(goal, catalog, workers=1), runs=1)
    return {"plan_goal_s": round(pooled_s, 3), "plan_goal_serial_s": round(serial_s, 3),
            "plan_goal_options": len(options), "plan_goal_meeting": sum(o.meets for o in options),
            "plan_goal_gpus": {f"{o.system}/{o.fabric}": o.gpus for o in options if o.status == "ok"}}


if __name__ == "__main__":
    import json

    print(json.dumps(bench(), indent=2))
