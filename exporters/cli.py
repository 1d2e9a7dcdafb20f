"""``podplanner export``: every file format from one analysis of the design.

A command module of the ``podplanner`` command line: ``NAME``, ``add_parser`` and
``run``, registered by the launcher beside the domain's own commands. Each format's
flag comes from :data:`exporters.registry.FORMATS`.

A large design takes seconds to analyse and to write, so on a terminal each step says what it is doing
and how long it took, on stderr ("Writing Quote (PDF) to q.pdf… 1.20 s"); where stderr is not a terminal
(a script, a pipe, CI) nothing is added, and stdout carries only the "wrote" lines either way.
"""
from __future__ import annotations

import math
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from catalog import Catalog
from designer.cli import UsageError
from designer.cli.flags import path
from designer.design_errors import design_errors
from designer.fileformat import load
from designer.formatting import quantity

from .registry import FORMATS, ExportError, check_target
from .staging import Staging, StagingError

NAME = "export"
MIN_DPI, MAX_DPI = 36, 600
#: the formats that carry prices and the customer's name
QUOTE_FORMATS = ("pdf", "pdf-appendix", "xlsx", "csv")


def add_parser(subparsers) -> None:
    e = subparsers.add_parser(NAME, help="write files from a design: " + ", ".join(
        f.title.lower() for f in FORMATS.values()))
    e.add_argument("file", type=path)
    for fmt in FORMATS.values():
        e.add_argument(fmt.flag, dest=f"out_{fmt.name}", metavar=fmt.metavar, type=path, help=fmt.description)
    e.add_argument("--netbox-url", metavar="URL", help="push the design into the NetBox at URL through its REST API "
                                                      "(idempotent: a second push changes nothing; never deletes)")
    e.add_argument("--netbox-token", metavar="T", help="the NetBox API token for --netbox-url (or the NETBOX_TOKEN "
                                                       "environment variable, which keeps it out of the process list)")
    e.add_argument("--netbox-dry-run", action="store_true",
                   help="with --netbox-url: say what the push would create and change, and change nothing")
    e.add_argument("--netbox-missing-only", action="store_true",
                   help="with --netbox DIR and --netbox-url: write DIR for that NetBox, leaving out the shared rows "
                        "it already holds (custom fields, manufacturers, roles, rack and device types), so that "
                        "every row of DIR imports; nothing is pushed")
    e.add_argument("--allow-errors", action="store_true",
                   help="a design with error findings is written (and pushed) all the same, with exit status 0: "
                        "for drafts (without it, the files are written, the errors named, and the exit status is 1; "
                        "nothing is pushed into NetBox)")
    e.add_argument("--dpi", type=_dpi, metavar="N", help=f"resolution of the PNG images, {MIN_DPI}-{MAX_DPI} (150)")
    e.add_argument("--prices", metavar="FILE", type=path,
                   help="a price list (CSV or XLSX: part number, price, currency, date) whose prices override the "
                        "catalog's for this export")
    e.add_argument("--customer", metavar="NAME", help="the customer the quote is for (overrides the project's)")
    e.add_argument("--quote-settings", metavar="FILE", type=path,
                   help="a JSON file of quote settings, as the project file's \"quote\" object holds them "
                        "(customer, quote_number, validity_days, discounts, ...): each key given overrides the "
                        "project's; the flags below override the file")
    e.add_argument("--seller", metavar="FILE", type=path,
                   help="a JSON file of the seller: company, address, contact, email, phone, tax_id, logo (a PNG, "
                        "JPEG or SVG file), payment_terms, delivery_terms, warranty_terms, incoterm (overrides the "
                        "quote's)")
    e.add_argument("--quote-number", metavar="Q", help="the quote's number (overrides the project's)")
    e.add_argument("--revision", metavar="LETTER", help="the quote's revision letter, A to Z then AA to ZZ (overrides "
                                                        "the project's; default A)")
    e.add_argument("--changes-since", metavar="OLD", type=path,
                   help="an earlier revision's project file: the quote PDF (and its appendix) gets a page of what "
                        "changed in the bill since that revision")
    e.add_argument("--valid-days", metavar="N", help="days the quote is valid from its date, 1-3650 (overrides the "
                                                     "project's; default 30)")
    e.add_argument("--discount", metavar="PCT", help="percent off list on the whole quote: every section of the bill "
                                                     "(a --section-discount replaces it for its section); "
                                                     "negative for an uplift over list")
    e.add_argument("--section-discount", metavar="SECTION=PCT", action="append",
                   help="percent off list on one bill section (compute, network, storage, optics, power, cooling, "
                        "racks, software, services); repeatable, overrides the project's for that section")
    e.add_argument("--currency", metavar="CUR", help="the currency the quote is totalled in, an ISO 4217 code such as "
                                                     "USD or EUR (overrides the project's); prices in another currency "
                                                     "are converted at the quote's stated exchange rates")
    e.add_argument("--exchange-rate", metavar="CUR=RATE@DATE", action="append",
                   help="one unit of CUR is RATE of the quote's currency, as stated on DATE (YYYY-MM-DD), e.g. "
                        "EUR=1.085@2026-12-01; repeatable, replaces the project's rate for that currency")


def run(args, catalog: Catalog) -> int:
    wanted = [(fmt, Path(getattr(args, f"out_{fmt.name}"))) for fmt in FORMATS.values()
              if getattr(args, f"out_{fmt.name}", None)]
    push = _push_target(args)
    if not wanted and push is None:
        flags = [f"{f.flag} {f.metavar}" for f in FORMATS.values()] + ["--netbox-url URL"]
        raise UsageError(f"podplanner export: say what to write: {', '.join(flags[:-1])} or {flags[-1]}")
    priced = [fmt for fmt, _ in wanted if fmt.name in QUOTE_FORMATS]
    for flag in ("prices", "customer", "quote_number", "valid_days", "discount", "section_discount", "quote_settings",
                 "seller", "currency", "exchange_rate", "revision"):
        if getattr(args, flag) is not None and not priced:
            raise UsageError(f"podplanner export: --{flag.replace('_', '-')} applies to the quote: give it with "
                             + ", ".join(FORMATS[n].flag for n in QUOTE_FORMATS if n in FORMATS))
    _check_changes_since(args, wanted)
    if args.customer is not None and not args.customer.strip():
        raise UsageError("podplanner export: --customer: give the customer's name")
    if args.dpi is not None and not any("dpi" in fmt.options for fmt, _ in wanted):
        raise UsageError("podplanner export: --dpi applies to the images: give it with "
                         + ", ".join(f.flag for f in FORMATS.values() if "dpi" in f.options))
    for fmt, out in wanted:  # refuse a bad target before spending time on the analysis
        try:
            check_target(fmt, out)
        except ExportError as exc:
            raise UsageError(f"podplanner export: {fmt.flag}: {exc}") from None
    seen: dict[str, str] = {}
    for fmt, out in wanted:  # two formats on one file would each replace the other's (a link counts as its file)
        real = os.path.realpath(out)
        if real in seen:
            raise UsageError(f"podplanner export: {seen[real]} and {fmt.flag} name the same file ({out}); give each "
                             f"format its own")
        seen[real] = fmt.flag
    from designer.analysis import analyze

    progress = Progress(sys.stderr)
    rows_of: dict[str, int] = {}
    with progress.step(f"Analysing {Path(args.file).name}"):
        project = load(args.file, catalog)
        project = _with_quote_flags(project, args, rows_of)
        analysis = analyze(project, catalog)
    since = _earlier(args, catalog, progress)
    held = _held(push, progress) if args.netbox_missing_only else None
    _say_unmatched(analysis, args, rows_of)
    # Each format goes to a temporary beside its target; all are renamed into place only when every one
    # is written, so a failing format leaves no partial set (exporters/staging.py).
    staging, wrote = Staging(), []
    try:
        for fmt, out in wanted:
            options = {"dpi": args.dpi} if "dpi" in fmt.options and args.dpi is not None else {}
            try:
                with progress.step(f"Writing {fmt.title} to {out.name}"):
                    write = _writer(fmt, since, held)
                    wrote.append((out, write(analysis, staging.temporary(fmt, out), **options)))
            except ExportError as exc:
                raise UsageError(f"podplanner export: {fmt.flag}: {exc}") from None
            except OSError as exc:
                raise UsageError(f"podplanner export: {fmt.flag}: {out}: cannot be written "
                                 f"({exc.strerror or exc})") from None
        try:
            staging.commit()
        except StagingError as exc:
            raise UsageError(f"podplanner export: {exc.fmt.flag}: {exc}") from None
    finally:
        staging.discard()
    for out, account in wrote:
        print(f"wrote {out}: {account}")
    errors = design_errors(analysis)
    if errors:
        _say_errors(args, errors, wrote, push is not None and held is None and not args.netbox_dry_run)
    if push is not None and held is None and (args.netbox_dry_run or args.allow_errors or not errors):
        _push(analysis, push, args.netbox_dry_run, progress)
    return 1 if errors and not args.allow_errors else 0


def _say_errors(args, errors, wrote, pushing: bool) -> None:
    """On stderr: the design's errors (how many, the first by place), and what was done all the same."""
    name = Path(args.file).name
    if args.allow_errors:
        done = "written as a draft (--allow-errors)"
    else:
        done = ("the files were written all the same" if wrote else "nothing was written") + (
            "; nothing was pushed into NetBox" if pushing else "") + "; give --allow-errors for a draft"
    print(f"podplanner export: {name}: {errors.phrase}, {done}:", file=sys.stderr)
    for line in errors.listing().splitlines():
        print(f"  {line}", file=sys.stderr)


def _held(target: tuple[str, str], progress):
    """The shared objects the NetBox of ``--netbox-missing-only`` holds."""
    from designer.netbox_api import NetBoxAPIError

    from .netbox_held import read_held

    url, token = target
    try:
        with progress.step(f"Reading what NetBox at {url} holds"):
            return read_held(url, token)
    except NetBoxAPIError as exc:
        raise UsageError(f"podplanner export: --netbox-url: {exc}") from None


def _push_target(args) -> tuple[str, str] | None:
    """(URL, token) of ``--netbox-url``, the token from ``--netbox-token`` or NETBOX_TOKEN; None without a URL."""
    if args.netbox_url is None:
        if args.netbox_token is not None or args.netbox_dry_run or args.netbox_missing_only:
            raise UsageError("podplanner export: --netbox-token, --netbox-dry-run and --netbox-missing-only go with "
                             "--netbox-url URL")
        return None
    if args.netbox_missing_only and (args.out_netbox is None or args.netbox_dry_run):
        raise UsageError("podplanner export: --netbox-missing-only writes the folder of --netbox DIR for the NetBox "
                         "at --netbox-url (and pushes nothing): give --netbox DIR, without --netbox-dry-run")
    token = args.netbox_token if args.netbox_token is not None else os.environ.get("NETBOX_TOKEN", "")
    if not token.strip():
        raise UsageError("podplanner export: --netbox-url: give the API token with --netbox-token T or in the "
                         "NETBOX_TOKEN environment variable")
    from designer.netbox_api import NetBoxAPI, NetBoxAPIError

    try:
        NetBoxAPI(args.netbox_url, token)  # the address and token checked before the analysis
    except NetBoxAPIError as exc:
        raise UsageError(f"podplanner export: --netbox-url: {exc}") from None
    return args.netbox_url, token


def _push(analysis, target: tuple[str, str], dry_run: bool, progress) -> None:
    from .netbox_push import NetBoxPushError, push_netbox

    url, token = target
    try:
        with progress.step(f"{'Comparing with' if dry_run else 'Pushing to'} NetBox at {url}"):
            report = push_netbox(analysis, url, token, dry_run=dry_run,
                                 say=lambda text: print(f"  {text}", file=sys.stderr))
    except (NetBoxPushError, ExportError) as exc:
        raise UsageError(f"podplanner export: --netbox-url: {exc}") from None
    head = "would change" if dry_run else "changed"
    print(f"NetBox {report.netbox_version} at {report.url}: {head} {report.changes:,} object"
          f"{'s' if report.changes != 1 else ''}" + (" (dry run: nothing was written)" if dry_run else ""))
    for line in report.lines():
        print(f"  {line}")


#: the formats that can print the page of changes since an earlier revision
CHANGES_FORMATS = ("pdf", "pdf-appendix")


def _check_changes_since(args, wanted) -> None:
    """``--changes-since`` is the quote PDF's: refused without --pdf or --pdf-appendix."""
    if args.changes_since is not None and not any(fmt.name in CHANGES_FORMATS for fmt, _ in wanted):
        raise UsageError("podplanner export: --changes-since applies to the quote PDF: give it with "
                         + " or ".join(FORMATS[n].flag for n in CHANGES_FORMATS if n in FORMATS))


def _earlier(args, catalog: Catalog, progress: Progress):
    """The analysis of the ``--changes-since`` design (None without the flag); a UsageError naming the file when
    it cannot be read or analysed."""
    if args.changes_since is None:
        return None
    from .quote_pdf import earlier_analysis

    with progress.step(f"Analysing {Path(args.changes_since).name}"):
        try:
            return earlier_analysis(args.changes_since, catalog)
        except ExportError as exc:
            raise UsageError(f"podplanner export: --changes-since: {exc}") from None


def _writer(fmt, since, held=None):
    """What writes ``fmt``: its own write; for the quote PDFs with ``since`` one that adds the changes page; for the
    NetBox folder with ``held`` one written for that NetBox."""
    if held is not None and fmt.name == "netbox":
        from .netbox_export import write_netbox

        return lambda analysis, out: write_netbox(analysis, out, held=held)
    if since is None or fmt.name not in CHANGES_FORMATS:
        return fmt.write
    from .quote_pdf import write_appendix_pdf, write_quote_pdf

    write = write_quote_pdf if fmt.name == "pdf" else write_appendix_pdf
    return lambda analysis, out: write(analysis, out, since=since)


class Progress:
    """One line per step on ``stream`` when it is a terminal: what is being done, then how long it took
    (or "failed"); nothing at all when it is not a terminal."""

    def __init__(self, stream: TextIO, clock=time.monotonic):
        self.stream, self.clock = stream, clock
        try:
            self.enabled = bool(stream.isatty())
        except (AttributeError, ValueError):  # no isatty, or a closed stream
            self.enabled = False

    @contextmanager
    def step(self, what: str):
        if not self.enabled:
            yield
            return
        sys.stdout.flush()  # a "wrote" line already printed comes first on a shared terminal
        self.stream.write(f"{what}… ")
        self.stream.flush()
        start = self.clock()
        try:
            yield
        except BaseException:
            self.stream.write("failed\n")
            self.stream.flush()
            raise
        self.stream.write(f"{quantity(self.clock() - start, 's')}\n")
        self.stream.flush()


def _say_unmatched(analysis, args, rows_of: dict[str, int]) -> None:
    """The price list's rows that price no part on the bill, by their row in the file, on stderr (the window
    lists them in a finding): a typo in a part number otherwise leaves the catalog's price on its line."""
    if not args.prices or not analysis.has("bom"):
        return
    from designer.quote_settings import part_key

    unused = analysis.bom.price_list.unused
    if not unused:
        return
    rows = sorted((rows_of.get(part_key(pn), 0), pn) for pn in unused)
    shown = ", ".join(f"row {n} ({pn})" for n, pn in rows[:20]) + (" …" if len(rows) > 20 else "")
    print(f"podplanner export: --prices: {len(rows):,} row{'s' if len(rows) != 1 else ''} of {Path(args.prices).name} "
          f"match{'es' if len(rows) == 1 else ''} no part on the bill: {shown}", file=sys.stderr)


def _exchange_rate(item: str, currency: str):
    """An ``--exchange-rate CUR=RATE@DATE`` into the quote's currency, checked as a project file's rate is."""
    from designer.quote_settings import ExchangeRate, QuoteError, check_exchange_rate

    cur, eq, rest = item.partition("=")
    rate, at, day = rest.partition("@")
    if not (eq and at):
        raise UsageError(f"podplanner export: --exchange-rate: {item[:60]!r} is not CUR=RATE@DATE, such as "
                         f"EUR=1.085@2026-12-01")
    try:
        value = float(rate.strip())
    except ValueError:
        raise UsageError(f"podplanner export: --exchange-rate: {rate.strip()[:30]!r} is not a number") from None
    found = ExchangeRate(cur.strip().upper(), currency, value, day.strip())
    try:
        check_exchange_rate(found, "--exchange-rate")
    except QuoteError as exc:
        raise UsageError(f"podplanner export: {exc}") from None
    return found


def _with_quote_flags(project, args, rows_of: dict[str, int] | None = None):
    """The project with the quote's flags (``--prices``, ``--customer``, ``--quote-number``, ``--valid-days``,
    ``--section-discount``) applied, through the same command the window uses."""
    from catalog.files import FileReadError
    from designer.commands import CommandError, UpdateQuoteCommand
    from designer.quote.prices import read_price_list
    from designer.quote_settings import QuoteError

    changes: dict = _quote_file(args.quote_settings) if args.quote_settings else {}
    # (a caller building its own arguments may leave out the flags it does not use)
    currency, exchange_rates = getattr(args, "currency", None), getattr(args, "exchange_rate", None)
    if currency is not None:
        from designer.commands import SetCurrencyCommand

        try:
            project = SetCurrencyCommand(currency).apply(project, None)[0]
        except CommandError as exc:
            raise UsageError(f"podplanner export: --currency: {exc}") from None
    if exchange_rates:
        rates = {r.base: r for r in changes.get("exchange_rates", project.quote.exchange_rates)}
        for item in exchange_rates:
            rate = _exchange_rate(item, project.currency)
            rates = {b: r for b, r in rates.items() if {r.base, r.quote} != {rate.base, rate.quote}}
            rates[rate.base] = rate
        changes["exchange_rates"] = tuple(rates.values())
    if args.seller:
        changes["seller"] = _seller_file(args.seller)
    if args.prices:
        try:
            entries, name = read_price_list(args.prices, default_currency=project.currency, rows_of=rows_of)
        except QuoteError as exc:
            raise UsageError(f"podplanner export: --prices: {exc}") from None
        except FileReadError as exc:
            raise UsageError(f"podplanner export: --prices: {args.prices}: {exc}") from None
        changes.update(prices=entries, price_list_name=name)
    if args.customer is not None:
        changes["customer"] = args.customer
    revision = getattr(args, "revision", None)  # (a caller's namespace made before the flag existed has none)
    if revision is not None:
        changes["revision"] = revision.strip()
    if args.quote_number is not None:
        if not args.quote_number.strip():
            raise UsageError("podplanner export: --quote-number: give the quote's number")
        changes["quote_number"] = args.quote_number.strip()
    if args.valid_days is not None:
        changes["validity_days"] = _whole_days(args.valid_days)
    if args.discount is not None:
        from designer.quote_settings import SECTION_KEYS

        whole = _percent(args.discount, "--discount", "the whole quote")
        changes["discounts"] = {key: whole for key in SECTION_KEYS}
    if args.section_discount:
        discounts = dict(changes["discounts"]) if "discounts" in changes else project.quote.discount_map
        for item in args.section_discount:
            section, pct = _section_discount(item)
            discounts[section] = pct
        changes["discounts"] = discounts
    if not changes:
        return project
    try:
        return UpdateQuoteCommand(changes).apply(project, None)[0]
    except CommandError as exc:
        raise UsageError(f"podplanner export: {exc}") from None


#: a file of quote settings is a few kB; a price list belongs in --prices
QUOTE_FILE_LIMIT = 1024 * 1024


def _json_file(path, flag: str):
    """A small JSON file, each object's keys given once, or a UsageError naming ``flag`` and the file."""
    import json

    from catalog.files import FileReadError, read_text

    def pairs(items):
        d = dict(items)
        if len(d) != len(items):
            key = next(k for i, (k, _) in enumerate(items) if k in dict(items[:i]))
            raise UsageError(f"podplanner export: {flag}: {path}: {key!r} is given twice in one object")
        return d

    try:
        return json.loads(read_text(path, limit=QUOTE_FILE_LIMIT), object_pairs_hook=pairs)
    except FileReadError as exc:
        raise UsageError(f"podplanner export: {flag}: {path}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise UsageError(f"podplanner export: {flag}: {path}: not valid JSON ({str(exc)[:120]})") from None


def _seller_file(path):
    """The seller a ``--seller`` file gives (its ``seller`` object, or the file's own), checked."""
    from designer.quote_seller import SellerError, seller_from_json

    doc = _json_file(path, "--seller")
    if isinstance(doc, dict) and set(doc) == {"seller"}:
        doc = doc["seller"]
    try:
        return seller_from_json(doc, "seller")
    except SellerError as exc:
        raise UsageError(f"podplanner export: --seller: {path}: {exc}") from None


def _quote_file(path) -> dict:
    """The quote settings a ``--quote-settings`` file gives (its ``quote`` object, or the file's own), each
    checked as a project file's are; only the keys it gives."""
    from designer.quote_settings import QuoteError, quote_from_json

    doc = _json_file(path, "--quote-settings")
    if isinstance(doc, dict) and set(doc) == {"quote"}:
        doc = doc["quote"]
    try:
        parsed = quote_from_json(doc, "quote")
    except QuoteError as exc:
        raise UsageError(f"podplanner export: --quote-settings: {path}: {exc}") from None
    return {key: getattr(parsed, key) for key in doc}


def _whole_days(text: str) -> int:
    t = text.strip()
    if not (t.isascii() and t.isdigit()) or len(t) > 4 or not 1 <= int(t) <= 3650:
        raise UsageError(f"podplanner export: --valid-days: {text[:20]!r} is not a whole number of days from 1 to "
                         f"3650")
    return int(t)


def _section_discount(item: str) -> tuple[str, float]:
    """``network=8`` -> ("network", 8.0), or a UsageError naming the flag and the sections."""
    from designer.quote_settings import SECTION_KEYS

    section, sep, pct = item.partition("=")
    section = section.strip().lower()
    if not sep or section not in SECTION_KEYS:
        raise UsageError(f"podplanner export: --section-discount: {item[:40]!r} is not SECTION=PCT with a section "
                         f"of {', '.join(SECTION_KEYS)}")
    return section, _percent(pct, "--section-discount", section)


def _percent(text: str, flag: str, what: str) -> float:
    """A discount in percent, -100 to 100 with at most three decimals (as the quote keeps them); a negative one
    is an uplift over list."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not -100 <= value <= 100 or round(value, 3) != value:
        raise UsageError(f"podplanner export: {flag}: {what}: {text[:20]!r} is not a percentage from -100 to 100 "
                         f"(a negative one is an uplift; at most three decimals)")
    return value


def _dpi(text: str) -> int:
    """A resolution the image can be drawn at without running out of memory on a large hall."""
    import argparse

    t = text.strip()
    # ASCII digits only: str.isdigit() also takes "²", which int() then refuses
    if not (t.isascii() and t.isdigit()) or len(t) > 4 or not MIN_DPI <= int(t) <= MAX_DPI:
        raise argparse.ArgumentTypeError(f"{text[:20]!r} is not a resolution from {MIN_DPI} to {MAX_DPI}")
    return int(text)
