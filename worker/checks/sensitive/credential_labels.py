"""Tokens without a prefix that ``credentials`` knows by the label naming them.

Many providers issue keys with no fixed part: 32 letters and digits of
Algolia look like any other 32. The public secret scanners (gitleaks' rules,
MIT, read for facts only) find them where a label names the provider
(``ALGOLIA_API_KEY=…``, ``"datadog_access_token": "…"``); this table holds,
per provider and key kind, the label's provider words and the value's
characters and length, written in our own terms. ``labelled_tokens.py``
finds them, ``gates/detectors.py`` opens the gate on the provider words and
``docs/credentials.md`` lists them.

The provider words are written in lower case, words of a name split by a
space (``new relic``): the finder takes them in any case and joined by
nothing, ``_``, ``-`` or ``.`` too (``NEW_RELIC``, ``newrelic``). A value
is matched without regard to case, as the scanners' rules do.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LabelledFormat:
    """One key kind of one provider: the words naming it and the value's shape."""

    provider: str
    kind: str
    names: tuple[str, ...]
    value: str
    """The whole value, a regex matched without regard to case."""
    shape: str
    """The value in words, for the documentation."""
    bare: bool = False
    """Counted without a secret word in the label: the value is a user and password itself."""


# What a value may be made of: the class and its name in the documentation.
_CHARS = {
    "alnum": ("[a-z0-9]", "letters and digits"),
    "hex": ("[0-9a-f]", "hex digits"),
    "b64url": (r"[a-z0-9_\-]", "letters, digits, `_` and `-`"),
    "b64urlpad": (r"[a-z0-9_=\-]", "letters, digits, `_`, `-` and `=`"),
    "b64": ("[a-z0-9+/]", "base64 characters"),
}
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _run(chars: str, count: int | tuple[int, int]) -> tuple[str, str]:
    """``count`` characters of class ``chars``: the regex and the words."""
    cls, name = _CHARS[chars]
    if isinstance(count, int):
        return f"{cls}{{{count}}}", f"{count} {name}"
    low, high = count
    return f"{cls}{{{low},{high}}}", f"{low} to {high} {name}"


def run(
    provider: str, kind: str, names: tuple[str, ...], chars: str, count: int | tuple[int, int]
) -> LabelledFormat:
    """A value of ``count`` characters of one class."""
    value, shape = _run(chars, count)
    return LabelledFormat(provider, kind, names, value, shape)


def shaped(
    provider: str, kind: str, names: tuple[str, ...], value: str, shape: str
) -> LabelledFormat:
    """A value of a shape of its own (a fixed head, parts, a UUID)."""
    return LabelledFormat(provider, kind, names, value, shape)


def uuid(provider: str, kind: str, names: tuple[str, ...]) -> LabelledFormat:
    return LabelledFormat(provider, kind, names, _UUID, "a UUID")


_ATLASSIAN = ("atlassian", "confluence", "jira")
_JFROG = ("jfrog", "artifactory", "bintray", "xray")
_NEW_RELIC = ("new relic",)
_TWITTER = ("twitter",)

LABELLED: tuple[LabelledFormat, ...] = (
    # --- cloud, hosting, infrastructure ---
    run("Alibaba Cloud", "secret key", ("alibaba",), "alnum", 30),
    shaped(
        "AWS",
        "Bedrock short-term API key",
        ("bedrock",),
        "bedrock-api-key-[a-z0-9+/=]{20,}",
        "`bedrock-api-key-` then 20 or more base64 characters",
    ),
    run("Cloudflare", "API token", ("cloudflare",), "b64url", 40),
    run("Cloudflare", "global API key", ("cloudflare",), "hex", 37),
    uuid("Heroku", "API key", ("heroku",)),
    run("Vercel", "access token", ("vercel",), "alnum", 24),
    run("Netlify", "access token", ("netlify",), "b64urlpad", (40, 46)),
    run("Linode", "personal access token", ("linode",), "hex", 64),
    run("Hetzner Cloud", "API token", ("hcloud", "hetzner"), "alnum", 64),
    shaped(
        "Yandex Cloud",
        "static access key id",
        ("yandex",),
        r"YC[a-z0-9_\-]{38}",
        "`YC` then 38 letters, digits, `_`, `-`",
    ),
    shaped(
        "Yandex Cloud",
        "API key",
        ("yandex",),
        r"AQVN[a-z0-9_\-]{35,38}",
        "`AQVN` then 35 to 38 characters",
    ),
    shaped(
        "Yandex Cloud",
        "IAM token",
        ("yandex",),
        r"t1\.[a-z0-9_\-]+={0,2}\.[a-z0-9_\-]{86}={0,2}",
        "`t1.`, a part, `.` and 86 letters, digits, `_`, `-`",
    ),
    shaped(
        "HashiCorp Vault",
        "service token",
        ("vault",),
        r"hvs\.[a-z0-9_\-]{90,120}|s\.[a-z0-9]{24}",
        "`hvs.` and 90 to 120 characters, or `s.` and 24 letters and digits",
    ),
    shaped("JFrog", "API key", _JFROG, "[a-z0-9]{73}|AKCp[a-z0-9]{69}", "73 letters and digits"),
    run("JFrog", "identity token", _JFROG, "alnum", 64),
    # --- observability ---
    run("Datadog", "API key", ("datadog", "dd api"), "hex", 32),
    run("Datadog", "application or access key", ("datadog", "dd app"), "alnum", 40),
    run("Sumo Logic", "access key", ("sumo",), "alnum", 64),
    shaped(
        "Honeycomb",
        "API key",
        ("honeycomb",),
        "[a-z0-9]{22}|[a-f0-9]{32}",
        "22 letters and digits, or 32 hex",
    ),
    run("Sentry", "access token", ("sentry",), "hex", 64),
    shaped(
        "New Relic",
        "user API key",
        _NEW_RELIC,
        "NRAK-[a-z0-9]{27}",
        "`NRAK-` then 27 letters and digits",
    ),
    shaped(
        "New Relic", "insert key", _NEW_RELIC, r"NRII-[a-z0-9\-]{32}", "`NRII-` then 32 characters"
    ),
    shaped(
        "New Relic",
        "browser API token",
        _NEW_RELIC,
        "NRJS-[a-f0-9]{19}",
        "`NRJS-` then 19 hex digits",
    ),
    # --- code, CI/CD, developer tools ---
    run("Atlassian", "API token (legacy)", _ATLASSIAN, "alnum", 24),
    run("Bitbucket", "client secret", ("bitbucket",), "b64urlpad", 64),
    run("Travis CI", "access token", ("travis",), "alnum", 22),
    shaped(
        "Codecov",
        "upload or access token",
        ("codecov",),
        f"[a-z0-9]{{32}}|{_UUID}",
        "32 letters and digits or a UUID",
    ),
    run("Drone CI", "access token", ("drone",), "alnum", 32),
    uuid("Snyk", "API token", ("snyk",)),
    shaped(
        "SonarQube",
        "token",
        ("sonar",),
        r"(?:squ_|sqp_|sqa_)?[a-z0-9=_\-]{40}",
        "40 letters, digits, `_`, `-`, `=` (after `squ_`, `sqp_` or `sqa_`, or alone)",
    ),
    run("Gitter", "access token", ("gitter",), "b64url", 40),
    run("Sourcegraph", "access token", ("sourcegraph",), "hex", 40),
    run("Mattermost", "access token", ("mattermost",), "alnum", 26),
    run("LaunchDarkly", "access token", ("launchdarkly",), "b64urlpad", 40),
    uuid("LaunchDarkly", "SDK key", ("launchdarkly",)),
    run("Linear", "client secret", ("linear",), "hex", 32),
    run("Fastly", "API token", ("fastly",), "b64urlpad", 32),
    shaped(
        "Frame.io",
        "API token",
        ("frameio", "frame io"),
        r"fio-u-[a-z0-9_=\-]{64}",
        "`fio-u-` then 64 letters, digits, `_`, `-`, `=`",
    ),
    run("Adafruit IO", "API key", ("adafruit",), "b64url", 32),
    run("Airtable", "API key (legacy)", ("airtable",), "alnum", 17),
    # Its head `pat` is too common a syllable to scan for alone (``patience``).
    shaped(
        "Airtable",
        "personal access token",
        ("airtable",),
        r"pat[a-z0-9]{14}\.[a-f0-9]{64}",
        "`pat`, 14 letters and digits, `.` then 64 hex digits",
    ),
    run("Algolia", "API key", ("algolia",), "alnum", 32),
    run("Asana", "client secret", ("asana",), "alnum", 32),
    run("Contentful", "delivery API token", ("contentful",), "b64urlpad", 43),
    run("Cisco Meraki", "API key", ("meraki",), "hex", 40),
    shaped(
        "ngrok",
        "authtoken",
        ("ngrok",),
        "[a-z0-9]{20,30}_[a-z0-9]{20,30}",
        "two runs of 20 to 30 letters and digits joined by `_`",
    ),
    shaped("Okta", "API token", ("okta",), r"00[a-z0-9_=\-]{40}", "`00` then 40 characters"),
    run("Looker", "client secret", ("looker",), "alnum", 24),
    run("RapidAPI", "API key", ("rapidapi", "rapid api"), "b64url", 50),
    run("Zendesk", "API token", ("zendesk",), "alnum", 40),
    run("Intercom", "access token", ("intercom",), "b64urlpad", 60),
    uuid("HubSpot", "API key (legacy)", ("hubspot",)),
    uuid("Squarespace", "API key", ("squarespace",)),
    # The value is a user and its password (``BUNDLE_GEMS__CONTRIBSYS__COM=user:pass``):
    # the provider's name is label enough.
    LabelledFormat(
        "Sidekiq",
        "Pro or Enterprise credentials",
        ("sidekiq", "contribsys"),
        "[a-f0-9]{8}:[a-f0-9]{8}",
        "two runs of 8 hex digits joined by `:`",
        bare=True,
    ),
    shaped(
        "Freemius",
        "secret key",
        ("freemius",),
        r"sk_[a-z0-9_\-+/=.!@#$%^&*~]{29}",
        "`sk_` then 29 characters",
    ),
    shaped(
        "Typeform",
        "API token",
        ("typeform",),
        r"tfp_[a-z0-9_=.\-]{59}",
        "`tfp_` then 59 characters",
    ),
    run("Private AI", "API key", ("private ai",), "alnum", 32),
    # --- payments, finance ---
    shaped(
        "Square",
        "access token",
        ("square",),
        r"(?:EAAA|sq0atp-)[a-z0-9_\-]{22,60}",
        "`EAAA` or `sq0atp-` then 22 to 60 letters, digits, `_`, `-`",
    ),
    shaped("Plaid", "secret", ("plaid",), "[a-z0-9]{30}", "30 letters and digits"),
    shaped(
        "Plaid",
        "access token",
        ("plaid",),
        f"access-(?:sandbox|development|production)-{_UUID}",
        "`access-`, the environment, `-` and a UUID",
    ),
    shaped(
        "GoCardless",
        "access token",
        ("gocardless",),
        r"live_[a-z0-9_=\-]{40}",
        "`live_` then 40 letters, digits, `_`, `-`, `=`",
    ),
    shaped(
        "Duffel",
        "API token",
        ("duffel",),
        r"duffel_(?:test|live)_[a-z0-9_=\-]{43}",
        "`duffel_test_` or `duffel_live_` then 43 characters",
    ),
    shaped(
        "Flutterwave",
        "secret key",
        ("flutterwave",),
        "FLWSECK(?:_TEST)?-[a-h0-9]{32}-X",
        "`FLWSECK-` or `FLWSECK_TEST-`, 32 hex digits and `-X`",
    ),
    shaped(
        "Flutterwave",
        "encryption key",
        ("flutterwave",),
        "FLWSECK_TEST-[a-h0-9]{12}",
        "`FLWSECK_TEST-` then 12 hex digits",
    ),
    shaped(
        "Lob",
        "API key",
        ("lob",),
        "(?:live|test)_[a-f0-9]{35}",
        "`live_` or `test_` then 35 hex digits",
    ),
    run("Coinbase", "access token", ("coinbase",), "b64url", 64),
    run("Finicity", "API token", ("finicity",), "hex", 32),
    run("Finicity", "client secret", ("finicity",), "alnum", 20),
    run("Finnhub", "access token", ("finnhub",), "alnum", 20),
    shaped(
        "Kraken", "API secret", ("kraken",), r"[a-z0-9/=_+\-]{80,90}", "80 to 90 base64 characters"
    ),
    run("KuCoin", "access token", ("kucoin",), "hex", 24),
    uuid("KuCoin", "secret key", ("kucoin",)),
    run("Bittrex", "access or secret key", ("bittrex",), "alnum", 32),
    run("Etsy", "access token", ("etsy",), "alnum", 24),
    run("Freshbooks", "access token", ("freshbooks",), "alnum", 64),
    # --- messaging, mail, social ---
    shaped("Beamer", "API token", ("beamer",), r"b_[a-z0-9=_\-]{44}", "`b_` then 44 characters"),
    shaped(
        "Discord",
        "bot token",
        ("discord",),
        r"[MNO][a-z0-9_\-]{23,27}\.[a-z0-9_\-]{6}\.[a-z0-9_\-]{27,40}",
        "three dot-separated base64 parts (24-28, 6, 27-40 characters)",
    ),
    run("Discord", "API token", ("discord",), "hex", 64),
    run("Discord", "client secret", ("discord",), "b64urlpad", 32),
    shaped(
        "Mailgun",
        "webhook signing key",
        ("mailgun",),
        "[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}",
        "32, 8 and 8 hex digits joined by `-`",
    ),
    shaped(
        "Mailgun", "private API key", ("mailgun",), "key-[a-f0-9]{32}", "`key-` then 32 hex digits"
    ),
    shaped(
        "Mailchimp",
        "API key",
        ("mailchimp",),
        "[a-f0-9]{32}-us[0-9]{1,2}",
        "32 hex digits, `-us` and the data centre",
    ),
    shaped(
        "Twilio SendGrid",
        "API key",
        ("sendgrid",),
        r"SG\.[a-z0-9=_\-.]{66}",
        "`SG.` then 66 characters",
    ),
    uuid("Postmark", "server token", ("postmark",)),
    run("MessageBird", "API key", ("messagebird", "message bird"), "alnum", 25),
    run("Sendbird", "API token", ("sendbird",), "hex", 40),
    run("Pusher", "app secret", ("pusher",), "hex", 20),
    shaped(
        "Telegram",
        "bot token",
        ("telegram",),
        r"[0-9]{5,16}:A[a-z0-9_\-]{34}",
        "the bot's number, `:A` and 34 characters",
    ),
    run("Facebook", "app secret", ("facebook",), "hex", 32),
    shaped(
        "Facebook",
        "app access token",
        ("facebook",),
        r"[0-9]{15,16}[|%][a-z0-9_\-]{27,40}",
        "the app's number, `|` and 27 to 40 characters",
    ),
    run("X (Twitter)", "API key", _TWITTER, "alnum", 25),
    run("X (Twitter)", "access token secret", _TWITTER, "alnum", 45),
    run("X (Twitter)", "API secret", _TWITTER, "alnum", 50),
    shaped(
        "X (Twitter)",
        "access token",
        _TWITTER,
        "[0-9]{15,25}-[a-z0-9]{20,40}",
        "the user's number, `-` and 20 to 40 letters and digits",
    ),
    shaped(
        "X (Twitter)",
        "bearer token",
        _TWITTER,
        "A{22}[a-z0-9%]{80,100}",
        "22 `A` then 80 to 100 characters",
    ),
    run("LinkedIn", "client secret", ("linkedin", "linked in"), "alnum", 16),
    run("Twitch", "API token", ("twitch",), "alnum", 30),
    run("Dropbox", "app secret or API token", ("dropbox",), "alnum", 15),
    shaped(
        "Dropbox",
        "long-lived access token",
        ("dropbox",),
        r"[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=\-]{43}",
        "11 letters and digits, ten `A`, then 43 characters",
    ),
    shaped(
        "Dropbox",
        "short-lived access token",
        ("dropbox",),
        r"sl\.[a-z0-9_=\-]{135}",
        "`sl.` then 135 characters",
    ),
    run("Flickr", "access token", ("flickr",), "alnum", 32),
    run("The New York Times", "API key", ("nytimes", "new york times"), "b64urlpad", 32),
    # --- AI, data ---
    run("Cohere", "API key", ("cohere", "co api key"), "alnum", 40),
    run("Mistral AI", "API key", ("mistral",), "alnum", 32),
    run("Weights & Biases", "API key", ("wandb",), "hex", 40),
    run("AssemblyAI", "API key", ("assemblyai", "assembly ai"), "hex", 32),
    run("Deepgram", "API key", ("deepgram",), "hex", 40),
    shaped("Confluent", "API secret", ("confluent",), "[a-z0-9+/]{64}", "64 base64 characters"),
    run("Confluent", "API key", ("confluent",), "alnum", 16),
)
