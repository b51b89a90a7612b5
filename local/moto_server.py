"""moto_server with KMS keys that survive a restart.

moto keeps everything in memory, so a key created again after a restart would get a new
id and new key material, and site passwords encrypted earlier could not be decrypted.
This launcher derives key ids and key material from a seed kept in the local data folder:
the n-th key created gets the same id and material on every run. Local use only.

Usage: python3 moto_server.py STATE_DIR [moto_server arguments...]
An empty STATE_DIR: a new seed for this run only.
Exit code 3: moto (with its server extras) is not installed for this Python.

It also makes SendMessage on a standard queue take the same time however many messages wait:
moto computes every attribute of the queue on each send (three counts over all its messages) to
read one that only FIFO queues have, so a send to a queue holding 2,000 messages took ~20x as long
as to an empty one (`npm run bench`, hot account, docs/operations.md).

And it gives moto's SQS its clock from time.time() (the same values): moto reads the time through
moto.core.utils.unix_time, two datetimes per call, twice per waiting message on every
ReceiveMessage and DeleteMessage (and on every send before the change above), so with 10,000
messages waiting each call took ~80 ms and a 10,000-article backlog ~40 minutes to create
(`npm run bench:backlog`, docs/operations.md). The scans stay linear, as moto has them.

And it lists moto's services once, not on every request: to find the service a request is for,
moto's server listed its own package folder and stat()ed each of its ~160 entries per request,
about a quarter of its CPU for an SQS or KMS call (docs/decisions.md). It also leaves out the
log line per request, which nobody reads (the launcher's output goes nowhere).
"""
import collections.abc
import hashlib
import itertools
import logging
import os
import secrets
import sys
import time
import uuid

try:
    import moto.backends as moto_backends
    import moto.kms.models as kms_models
    import moto.sqs.models as sqs_models
    from moto.server import main
except ImportError as error:
    print(f"moto is not installed for {sys.executable}: {error}", file=sys.stderr)
    sys.exit(3)

state_dir = sys.argv.pop(1)
seed = secrets.token_hex(32)
if state_dir:
    os.makedirs(state_dir, exist_ok=True)
    seed_path = os.path.join(state_dir, "kms-seed")
    if not os.path.exists(seed_path):
        with open(seed_path, "w") as seed_file:
            seed_file.write(seed)
    with open(seed_path) as seed_file:
        seed = seed_file.read().strip()

key_numbers = itertools.count()
current = {"n": 0}


def seeded_key_id(multi_region=False):
    current["n"] = next(key_numbers)
    digest = hashlib.sha256(f"{seed}:id:{current['n']}".encode()).digest()
    key_id = str(uuid.UUID(bytes=digest[:16], version=4))
    return "mrk-" + key_id.replace("-", "") if multi_region else key_id


def seeded_master_key():
    return hashlib.sha256(f"{seed}:material:{current['n']}".encode()).digest()


kms_models.generate_key_id = seeded_key_id
kms_models.generate_master_key = seeded_master_key

_queue_attributes = sqs_models.Queue.attributes.fget


class _LazyQueueAttributes(collections.abc.Mapping):
    """A queue's attributes, computed when first read, except the FIFO-only one a send reads."""

    def __init__(self, queue):
        self._queue = queue
        self._all = None

    def _load(self):
        if self._all is None:
            self._all = _queue_attributes(self._queue)
        return self._all

    def __getitem__(self, key):
        return self._load()[key]

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())

    def get(self, key, default=None):
        if key == "ContentBasedDeduplication" and not self._queue.fifo_queue:
            return default
        return self._load().get(key, default)


sqs_models.Queue.attributes = property(_LazyQueueAttributes)

moto_unix_time = sqs_models.unix_time


def sqs_unix_time(dt=None):
    return time.time() if dt is None else moto_unix_time(dt)


def sqs_unix_time_millis(dt=None):
    return sqs_unix_time(dt) * 1000.0


sqs_models.unix_time = sqs_unix_time
sqs_models.unix_time_millis = sqs_unix_time_millis

# The folders of moto's package do not change while it runs: read them once (a moto without
# this function is left as it is).
if callable(getattr(moto_backends, "list_of_moto_modules", None)):
    _moto_modules = tuple(moto_backends.list_of_moto_modules())
    moto_backends.list_of_moto_modules = lambda: _moto_modules

# Errors still reach the (discarded) output; the per-request access log does not.
logging.getLogger("werkzeug").setLevel(logging.WARNING)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
