"""Run by NetBox's own Python: import a PodPlanner NetBox folder through NetBox's bulk-import views.

    NETBOX_ROOT=... python nb_import.py FOLDER USER [--types EXTRA_TYPES_FOLDER] [--only NAME,...] [--skip-present]

Each file goes, in the order of the folder's README, to the import page of its object type
(``/<app>/<model>/import/``, NetBox's ``BulkImportView`` and its forms), posted as the page's form
posts it (``data``, ``format``), by a logged-in superuser through Django's test client, in this
process. NetBox imports a file in one transaction and stops at its first refused row; so a file
that is refused is posted again a row at a time, which names every refused row and imports the
others (later files refer to them). Device types (YAML) are posted a file at a time, those of
EXTRA_TYPES_FOLDER first (stand-ins for the community library's files the README names).

``--only custom-fields,manufacturers,...`` imports those files alone (the names without NN- and extension),
still in the README's order: the objects every design shares first, then each design's own files (in a
process of its own, beside another design's). ``--skip-present`` does what the README asks of a second
design: a row of a shared file (custom field, manufacturer, role, rack type, device type) that NetBox already
holds, found by its name or slug, is left out of the file posted and counted as ``present``.

Prints one JSON document: per file its rows, the objects of that type it created, the seconds it
took, the whole-file result and every refused row with NetBox's messages; then the counts of the types.
"""

import argparse
import csv
import io
import json
import re
import time
from pathlib import Path

import django

django.setup()

from django.apps import apps  # noqa: E402  (after django.setup())
from django.contrib.contenttypes.models import ContentType  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402

from core.models import ObjectChange  # noqa: E402
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
    "power-panels": "dcim.powerpanel",
    "power-feeds": "dcim.powerfeed",
    "power-ports": "dcim.powerport",
    "power-outlets": "dcim.poweroutlet",
    "power-cables": "dcim.cable",
    "feed-cables": "dcim.cable",
}
#: the shared files' natural keys: the column (and model field) a row is found by in NetBox
SHARED_KEYS = {"custom-fields": "name", "manufacturers": "slug", "device-roles": "slug", "rack-types": "slug"}
COUNTED = ("dcim.site", "dcim.location", "dcim.rack", "dcim.devicetype", "dcim.device", "dcim.interface",
           "dcim.cable", "extras.customfield", "dcim.powerpanel", "dcim.powerfeed", "dcim.powerport",
           "dcim.poweroutlet")


def readme_order(folder: Path) -> list[str]:
    """The files and folders the README lists, in its order (lines ``  NN-name  Page > ... (n rows)``)."""
    text = (folder / "README.txt").read_text(encoding="utf-8")
    return re.findall(r"^  (\d\d-[\w.-]+/?)\s", text, flags=re.M)


def name_of(entry: str) -> str:
    """``10-cables-part02.csv`` -> ``cables``: a file's kind, whole or one of the parts the export split it into."""
    return re.sub(r"-part\d+$", "", re.sub(r"^\d\d-", "", entry.rstrip("/")).removesuffix(".csv"))


def whole_of(entry: str) -> str:
    """``10-cables-part02.csv`` -> ``10-cables.csv``."""
    return re.sub(r"-part\d+(\.csv)$", r"\1", entry)


def model_of(entry: str):
    return apps.get_model(MODELS[name_of(entry)])


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


def created_by(response, model) -> int:
    """The objects of ``model`` that the request created, by NetBox's change log (each request has its id): other
    imports running beside this one create objects of the same types at the same time."""
    request_id = response.headers.get("X-Request-ID")
    if not request_id:
        return 0
    return ObjectChange.objects.filter(request_id=request_id, action="create",
                                       changed_object_type=ContentType.objects.get_for_model(model)).count()


def post(client, url: str, data: str, fmt: str):
    fields = {"data": data, "format": fmt, "import_method": "direct"}
    if fmt == "csv":
        fields["csv_delimiter"] = ","  # the page's "Comma"
    return client.post(url, fields)


def import_csv(client, path: Path, model, key: str | None = None) -> dict:
    """Post the file; with ``key`` (a shared file's key column), the rows NetBox already holds are left out."""
    url = reverse(f"{model._meta.app_label}:{model._meta.model_name}_bulk_import")
    text = path.read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    header, body = rows[0], rows[1:]
    present = 0
    if key:
        column = header.index(key)
        held = set(model.objects.filter(**{f"{key}__in": [r[column] for r in body]}).values_list(key, flat=True))
        kept = [r for r in body if r[column] not in held]
        present = len(body) - len(kept)
        out = io.StringIO()
        csv.writer(out, lineterminator="\n").writerows([header, *kept])
        text, body = out.getvalue(), kept
    start, created = time.monotonic(), 0
    whole = []
    if body:
        response = post(client, url, text, "csv")
        whole, created = errors_of(response), created_by(response, model)
    refused = []
    if whole:
        for number, row in enumerate(body, start=1):
            out = io.StringIO()
            csv.writer(out, lineterminator="\n").writerows([header, row])
            response = post(client, url, out.getvalue(), "csv")
            errs = errors_of(response)
            created += created_by(response, model)
            if errs:
                # "Record 1 ...": the one row posted; the file's own row number is what helps
                refused.append({"row": number, "first_cell": row[0] if row else "",
                                "errors": [re.sub(r"^Record 1 ", "", e) for e in errs]})
    return {"file": path.name, "whole": whole_of(path.name), "url": url, "rows": len(body), "present": present,
            "whole_file_errors": whole,
            "created": created, "refused_rows": refused,
            "seconds": round(time.monotonic() - start, 1)}


def held_type(text: str) -> bool:
    """Whether NetBox holds the device type of this YAML file (by its manufacturer and model, NetBox's own key)."""
    fields = dict(re.findall(r"^(manufacturer|model): *(.*?) *$", text, flags=re.M))
    return apps.get_model("dcim.devicetype").objects.filter(manufacturer__name=fields.get("manufacturer"),
                                                            model=fields.get("model")).exists()


def import_yaml(client, paths, model, skip_present: bool = False) -> list[dict]:
    url = reverse(f"{model._meta.app_label}:{model._meta.model_name}_bulk_import")
    results = []
    for path in paths:
        text = path.read_text(encoding="utf-8")
        present = int(skip_present and held_type(text))
        start, errs, created = time.monotonic(), [], 0
        if not present:
            response = post(client, url, text, "yaml")
            errs, created = errors_of(response), created_by(response, model)
        results.append({"file": f"{path.parent.name}/{path.name}", "url": url, "rows": 1 - present,
                        "present": present, "whole_file_errors": errs,
                        "created": created,
                        "refused_rows": [{"row": 1, "first_cell": path.name, "errors": errs}] if errs else [],
                        "seconds": round(time.monotonic() - start, 1)})
    return results


def main(folder: Path, user: str, extra_types: Path | None = None, only: set[str] | None = None,
         skip_present: bool = False) -> dict:
    setup_test_environment()  # the test client keeps the rendered form, and with it NetBox's messages
    client = Client()
    client.force_login(User.objects.get(username=user))
    results = []
    for entry in readme_order(folder):
        if only is not None and name_of(entry) not in only:
            continue
        model = model_of(entry)
        if entry.endswith("/"):
            extra = sorted(extra_types.glob("*.yaml")) if extra_types else []
            results.extend(import_yaml(client, extra + sorted((folder / entry).glob("*.yaml")), model, skip_present))
        else:
            key = SHARED_KEYS.get(name_of(entry)) if skip_present else None
            results.append(import_csv(client, folder / entry, model, key))
    counts = {label: apps.get_model(label).objects.count() for label in COUNTED}
    return {"files": results, "counts": counts}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("user")
    parser.add_argument("--types", type=Path, help="a folder of device types (YAML) imported before the folder's")
    parser.add_argument("--only", help="the files to import, by name without NN- and extension, comma-separated")
    parser.add_argument("--skip-present", action="store_true", help="leave out the shared rows NetBox holds")
    args = parser.parse_args()
    only = {n.strip() for n in args.only.split(",")} if args.only else None
    print(json.dumps(main(args.folder, args.user, args.types, only, args.skip_present), indent=1))
