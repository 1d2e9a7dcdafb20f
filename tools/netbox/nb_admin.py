"""Run by NetBox's own Python (tools/netbox/netbox_env.py start): the superuser and a v2 API token.

Prints one JSON line: the user's name and password and the token's Authorization header value.
"""

import json
import secrets
import sys

import django

django.setup()

from users.models import Token, User  # noqa: E402  (NetBox's models, after django.setup())

name = sys.argv[1]
password = secrets.token_urlsafe(24)
user = User.objects.filter(username=name).first() or User.objects.create_superuser(name, f"{name}@example.com")
user.set_password(password)
user.save()
token = Token(user=user, version=2, description="PodPlanner import test")
token.full_clean()
token.save()
print(json.dumps({"user": name, "password": password, "authorization": token.get_auth_header_prefix() + token.token}))
