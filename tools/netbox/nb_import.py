"""Run by NetBox's own Python: import a PodPlanner NetBox folder through NetBox's bulk-import views.

    NETBOX_ROOT=... python nb_import.py FOLDER USER [EXTRA_TYPES_FOLDER]

Each file goes, in the order of the folder's README, to the import page of its object type
(``/<app>/<model>/import/``, NetBox's ``BulkImportView`` and its forms), posted as the page's form
posts it (``data``, ``format``), by a logged-in superuser through Django's test client, in this
process. NetBox imports a file in one transaction and stops at its first refused row; so a file
that is refused is posted again a row at a time, which names every refused row and imports the
others (later files refer to them). Device types (YAML) are posted a file at a time, those of
EXTRA_TYPES_FOLDER first (stand-ins for the community library's files the README names).

Prints one JSON document: per file its rows, the objects of that type it created, the seconds it
took, the whole-file result and every refused row with NetBox's messages; then the counts of the types.
"""

import csv
import io
import json
import re
import sys
import time
from pathlib import Path

import django

django.setup()

from django.apps import apps  # noqa: E402  (after django.setup())
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

from users.models import User  # noqa: E402

#: file name (without NN- and extension) -> NetBox model
MODELS = {
    "custom-fields": "extras.customfield",
    "sites": "dcim.site",
    "locations": "dcim.location",
    "manufacturers": "dcim.manufacturer",
    "device-roles": "dcim.devicerole",
    "rack-types": "dcim.racktype",
    "racks": "dcim.rack",
    "device-types": "dcim.devicetype",
    "devices": "dcim.device",
    "interfaces": "dcim.interface",
    "cables": "dcim.cable",
}
COUNTED = ("dcim.site", "dcim.location", "dcim.rack", "dcim.devicetype", "dcim.device", "dcim.interface",
           "dcim.cable", "extras.customfield")


def readme_order(folder: Path) -> list[str]:
    """The files and folders the README lists, in its order (lines ``  NN-name  Page > ... (n rows)``)."""
    text = (folder / "README.txt").read_text(encoding="utf-8")
    return re.findall(r"^  (\d\d-[\w.-]+/?)\s", text, flags=re.M)


def model_of(entry: str):
    key = re.sub(r"^\d\d-", "", entry.rstrip("/")).removesuffix(".csv")
    return apps.get_model(MODELS[key])


def errors_of(response) -> list[str]:
    """NetBox's messages from a refused import (the form's errors), or [] for an accepted one."""
    if response.status_code in (301, 302):
        return []
    form = response.context["form"] if response.context else None
    if form is None:
        return [f"HTTP {response.status_code}"]
    messages = []
    for field, errs in form.errors.items():
        for e in errs:
            messages.append(e if field == "__all__" else f"{field}: {e}")
    return messages or [f"HTTP {response.status_code}, no error given"]


def post(client, url: str, data: str, fmt: str):
    fields = {"data": data, "format": fmt, "import_method": "direct"}
    if fmt == "csv":
        fields["csv_delimiter"] = ","  # the page's "Comma"
    return client.post(url, fields)


def import_csv(client, path: Path, model) -> dict:
    url = reverse(f"{model._meta.app_label}:{model._meta.model_name}_bulk_import")
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    before, start = model.objects.count(), time.monotonic()
    whole = errors_of(post(client, url, text, "csv"))
    refused = []
    if whole:
        for number, row in enumerate(body, start=1):
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows([header, row])
            errs = errors_of(post(client, url, out.getvalue(), "csv"))
            if errs:
                # "Record 1 ...": the one row posted; the file's own row number is what helps
                refused.append({"row": number, "first_cell": row[0] if row else "",
                                "errors": [re.sub(r"^Record 1 ", "", e) for e in errs]})
    return {"file": path.name, "url": url, "rows": len(body), "whole_file_errors": whole,
            "created": model.objects.count() - before, "refused_rows": refused,
            "seconds": round(time.monotonic() - start, 1)}


def import_yaml(client, paths, model) -> list[dict]:
    url = reverse(f"{model._meta.app_label}:{model._meta.model_name}_bulk_import")
    results = []
    for path in paths:
        before, start = model.objects.count(), time.monotonic()
        errs = errors_of(post(client, url, path.read_text(encoding="utf-8"), "yaml"))
        results.append({"file": f"{path.parent.name}/{path.name}", "url": url, "rows": 1, "whole_file_errors": errs,
                        "created": model.objects.count() - before,
                        "refused_rows": [{"row": 1, "first_cell": path.name, "errors": errs}] if errs else [],
                        "seconds": round(time.monotonic() - start, 1)})
    return results


def main(folder: Path, user: str, extra_types: Path | None) -> dict:
    setup_test_environment()  # the test client keeps the rendered form, and with it NetBox's messages
    client = Client()
    client.force_login(User.objects.get(username=user))
    results = []
    for entry in readme_order(folder):
        model = model_of(entry)
        if entry.endswith("/"):
            extra = sorted(extra_types.glob("*.yaml")) if extra_types else []
            results.extend(import_yaml(client, extra + sorted((folder / entry).glob("*.yaml")), model))
        else:
            results.append(import_csv(client, folder / entry, model))
    counts = {label: apps.get_model(label).objects.count() for label in COUNTED}
    return {"files": results, "counts": counts}


if __name__ == "__main__":
    extra = Path(sys.argv[3]) if len(sys.argv) > 3 else None
    print(json.dumps(main(Path(sys.argv[1]), sys.argv[2], extra), indent=1))
