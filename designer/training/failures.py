"""How often a design's training job is interrupted: per GPU, per host, per fabric link and per switch.

The rates are Llama 3 405B's 419 unexpected interruptions over a 54-day snapshot on 16,384 H100 in
2,048 hosts ("The Llama 3 Herd of Models", arXiv 2407.21783, §3.3.4, Table 5; read through a verbatim
copy), counted by what failed:

- on the GPU (faulty GPU 148, HBM3 72, SRAM 19, GPU system processor 17, silent data corruption 6,
  thermal interface and sensor 6) and in the software stack (software bug 54, NCCL watchdog 7,
  dependency 2): 331 events, charged per GPU, since a job's ranks and its GPUs grow together;
- on the host (maintenance 32, NIC 7, SSD 3, power supply 3, chassis 2, IO board 2, CPU 2, memory 2):
  53 events, charged per host (an 8-GPU server, or a rack system's compute tray);
- the fabric's 35 switch and cable events are not divisible by a link count the paper does not give,
  so links and switches take Alibaba's HPN measurement instead (SIGCOMM 2024, §2.3): 0.057 % of NIC-ToR
  links and 0.051 % of ToR switches fail each month.

On Llama 3's own cluster (16,384 node links, 1,024 leaves and spines as a rail fabric would have) these
give one interruption every 3.2 hours, where the paper's 419 in 54 days give 3.1: the links and switches
come to 17.5 events where the paper counts 35 network ones. The paper counts job
interruptions, not replaced parts, so for part failure rates they are an upper bound.

"2 % of GPUs a month" is the planning figure people quote; no primary source for it was found. It is
shown beside the design's own rate as a scenario (every GPU failing at that rate, nothing else), never
used as the design's rate.
"""
from __future__ import annotations

from dataclasses import dataclass

_HOURS = 54 * 24.0
_LLAMA3_GPUS, _LLAMA3_HOSTS = 16_384, 2_048
#: events per GPU-hour: GPU faults and the software stack (Llama 3 Table 5)
PER_GPU_HOUR = (148 + 72 + 19 + 17 + 6 + 6 + 54 + 7 + 2) / (_LLAMA3_GPUS * _HOURS)
#: events per host-hour (Llama 3 Table 5)
PER_HOST_HOUR = (32 + 7 + 3 + 3 + 2 + 2 + 2 + 2) / (_LLAMA3_HOSTS * _HOURS)
#: events per fabric link-hour and per switch-hour (Alibaba HPN: 0.057 % and 0.051 % a month)
_MONTH_H = 365.25 * 24 / 12
PER_LINK_HOUR = 0.00057 / _MONTH_H
PER_SWITCH_HOUR = 0.00051 / _MONTH_H
#: the scenario: 2 % of GPUs a month (planning figure; no source found)
SCENARIO_MONTHLY = 0.02
SOURCES = ("Llama 3 (arXiv 2407.21783) Table 5: 419 unexpected interruptions in 54 days on 16,384 H100",
           "Alibaba HPN (SIGCOMM 2024) §2.3: 0.057 % of links and 0.051 % of switches fail each month")


@dataclass(frozen=True)
class JobFailures:
    """Interruptions per hour of the whole job, by what fails, and the job's mean time between them."""

    gpus: int
    hosts: int
    links: int
    switches: int

    @property
    def by_part(self) -> dict[str, float]:
        return {"gpu_and_software": self.gpus * PER_GPU_HOUR, "host": self.hosts * PER_HOST_HOUR,
                "fabric_link": self.links * PER_LINK_HOUR, "switch": self.switches * PER_SWITCH_HOUR}

    @property
    def per_hour(self) -> float:
        return sum(self.by_part.values())

    @property
    def gpu_mtbf_hours(self) -> float:
        """The job's rate as a per-GPU MTBF (job MTBF × GPUs), so that a smaller slice of the design (the
        scaling curve's) keeps the design's mix of parts per GPU."""
        return self.gpus / self.per_hour

    def to_json(self) -> dict:
        parts = self.by_part
        total = self.per_hour
        return {"job_mtbf_h": round(1.0 / total, 4), "failures_per_day": round(24 * total, 4),
                "counted": {"gpus": self.gpus, "hosts": self.hosts, "fabric_links": self.links,
                            "switches": self.switches},
                "share": {k: round(v / total, 4) for k, v in parts.items()},
                "sources": list(SOURCES)}


def scenario_gpu_mtbf_hours(monthly: float = SCENARIO_MONTHLY) -> float:
    """Per-GPU MTBF of "``monthly`` of GPUs fail each month"."""
    return _MONTH_H / monthly
