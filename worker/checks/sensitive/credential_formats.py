"""The token formats ``credentials`` knows: one ``TokenFormat`` per provider's token kind.

Facts only, learnt from the providers' documentation and from the rule
definitions of public secret scanners; each format written here in our own
terms. ``FORMATS`` is data: ``credentials.py`` compiles it into one scan for
the anchors and one match per candidate, ``gates/detectors.py`` takes its gate
literals from the anchors, and ``docs/credentials.md`` is generated from it
(``python -m turncheck.worker.checks.sensitive.credential_formats``).

A format is found where one of its ``anchors`` stands (case as issued): its
``pattern`` must match there, starting at most ``lead`` characters before the
anchor (a token whose fixed part is inside it, like Azure's ``Q~``).
``words``: one of them must stand shortly before the token, for formats too
plain to stand alone. Tokens without a prefix, known only by a label naming
their provider, are ``credential_labels.LABELLED``.

``SPECIAL`` lists what ``credentials.py`` finds by code of its own (private
key blocks, JWTs, Bearer tokens, passwords in URLs, AWS secret keys, Twilio),
for the documentation.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from turncheck.worker.checks.sensitive.credential_labels import LABELLED


@dataclass(frozen=True, slots=True)
class TokenFormat:
    """One kind of token of one provider, and how to recognise it."""

    provider: str
    kind: str
    anchors: tuple[str, ...]
    pattern: str
    """Matches the whole token; a ``token`` group, when present, is the finding."""
    shape: str
    """How it is recognised, in words, for the documentation."""
    lead: int = 0
    words: tuple[str, ...] = ()


# Not the tail of a longer identifier, nor its head.
B = r"(?<![A-Za-z0-9_\-])"
E = r"(?![A-Za-z0-9_\-])"
# What may follow a prefix: the class and its name in the documentation.
_CHARS = {
    "alnum": ("[A-Za-z0-9]", "letters and digits"),
    "b64url": (r"[A-Za-z0-9_\-]", "letters, digits, `_` and `-`"),
    "word": ("[A-Za-z0-9_]", "letters, digits and `_`"),
    "hex": ("[0-9a-f]", "lower-case hex digits"),
    "HEX": ("[0-9a-fA-F]", "hex digits"),
    "upper": ("[A-Z0-9]", "capital letters and digits"),
    "lower": ("[a-z0-9]", "lower-case letters and digits"),
    "b64": ("[A-Za-z0-9+/]", "base64 characters"),
    "b64pad": ("[A-Za-z0-9+/=]", "base64 characters"),
    "alpha": ("[A-Za-z]", "letters"),
    "dotted": (r"[A-Za-z0-9_=.\-]", "letters, digits, `_ = . -`"),
}
_UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"


def _count(count: int | tuple[int, int | None]) -> tuple[str, str]:
    if isinstance(count, int):
        return f"{{{count}}}", str(count)
    low, high = count
    if high is None:
        return f"{{{low},}}", f"{low} or more"
    return f"{{{low},{high}}}", f"{low} to {high}"


def prefixed(
    provider: str,
    kind: str,
    prefix: str,
    chars: str,
    count: int | tuple[int, int | None],
    *,
    words: tuple[str, ...] = (),
) -> TokenFormat:
    """A literal prefix, then ``count`` characters of class ``chars``."""
    cls, name = _CHARS[chars]
    times, spoken = _count(count)
    pattern = rf"{B}{_escape(prefix)}{cls}{times}{E if chars != 'dotted' else ''}"
    shape = f"`{prefix}` then {spoken} {name}"
    if words:
        shape += f", with {_either(words)} shortly before"
    return TokenFormat(provider, kind, (prefix,), pattern, shape, words=words)


def _escape(literal: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "\\" + ch for ch in literal)


def _either(words: tuple[str, ...]) -> str:
    quoted = [f"`{w}`" for w in words]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " or " + quoted[-1]


def _prefixes(
    provider: str,
    kinds: tuple[tuple[str, str], ...],
    chars: str,
    count: int | tuple[int, int | None],
) -> tuple[TokenFormat, ...]:
    """Several kinds of one provider that differ only in their prefix."""
    return tuple(prefixed(provider, kind, prefix, chars, count) for kind, prefix in kinds)


_ANY = (20, None)
_HEX64 = "[0-9a-f]{64}"

FORMATS: tuple[TokenFormat, ...] = (
    # --- cloud ---
    *_prefixes(
        "AWS",
        (
            ("access key id", "AKIA"),
            ("temporary (STS) access key id", "ASIA"),
            ("STS service bearer token key id", "ABIA"),
            ("context-specific credential key id", "ACCA"),
        ),
        "upper",
        16,
    ),
    prefixed("AWS", "legacy access key id", "A3T", "upper", 17),
    prefixed("AWS", "Bedrock long-term API key", "ABSK", "b64pad", (100, None)),
    TokenFormat(
        "Microsoft Azure",
        "Entra ID (Azure AD) client secret",
        ("Q~",),
        r"(?<![A-Za-z0-9_~.\-])[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])",
        "three characters, a digit, `Q~`, then 31 to 34 letters, digits or `_ ~ . -`",
        lead=4,
    ),
    TokenFormat(
        "Microsoft Azure",
        "storage account key in a connection string",
        ("AccountKey=",),
        r"(?<![A-Za-z])AccountKey=[A-Za-z0-9+/]{20,}={0,2}",
        "`AccountKey=` then 20 or more base64 characters",
    ),
    TokenFormat(
        "Microsoft Azure",
        "Service Bus / Event Hubs shared access key",
        ("SharedAccessKey=",),
        r"(?<![A-Za-z])SharedAccessKey=[A-Za-z0-9+/]{20,}={0,2}",
        "`SharedAccessKey=` then 20 or more base64 characters",
    ),
    TokenFormat(
        "Google",
        "API key",
        ("AIza",),
        rf"{B}AIza[A-Za-z0-9_\-]{{35}}{E}",
        "`AIza` then 35 letters, digits, `_` and `-`",
    ),
    prefixed("Google", "OAuth client secret", "GOCSPX-", "b64url", (24, None)),
    prefixed("Google", "OAuth access token", "ya29.", "b64url", _ANY),
    prefixed("Google", "OAuth refresh token", "1//0", "b64url", (40, None)),
    prefixed("Alibaba Cloud", "AccessKey id", "LTAI", "alnum", 20),
    *_prefixes(
        "DigitalOcean",
        (
            ("personal access token", "dop_v1_"),
            ("OAuth token", "doo_v1_"),
            ("refresh token", "dor_v1_"),
        ),
        "hex",
        64,
    ),
    prefixed("Heroku", "API key (new format)", "HRKU-AA", "b64url", 58),
    prefixed("Fly.io", "access token", "fo1_", "b64url", 43),
    *_prefixes(
        "Fly.io",
        (
            ("macaroon auth token", "fm1a_"),
            ("macaroon refresh token", "fm1r_"),
            ("macaroon token v2", "fm2_"),
        ),
        "b64pad",
        (100, None),
    ),
    prefixed("Netlify", "personal access token", "nfp_", "alnum", 36),
    TokenFormat(
        "Cloudflare",
        "Origin CA key",
        ("v1.0-",),
        rf"{B}v1\.0-[0-9a-f]{{24}}-[0-9a-f]{{146}}{E}",
        "`v1.0-`, 24 hex digits, `-`, 146 hex digits",
    ),
    prefixed("Supabase", "personal access token", "sbp_", "hex", 40),
    prefixed("Supabase", "secret API key", "sb_secret_", "b64url", _ANY),
    *_prefixes(
        "PlanetScale",
        (
            ("service token", "pscale_tkn_"),
            ("OAuth token", "pscale_oauth_"),
            ("database password", "pscale_pw_"),
        ),
        "dotted",
        (32, 64),
    ),
    prefixed("Render", "API key", "rnd_", "alnum", (32, None)),
    prefixed("Scalingo", "API token", "tk-us-", "b64url", 48),
    prefixed("Red Hat OpenShift", "user token", "sha256~", "b64url", 43),
    TokenFormat(
        "Databricks",
        "personal access token",
        ("dapi",),
        rf"{B}dapi[0-9a-f]{{32}}(?:-[0-9])?{E}",
        "`dapi` then 32 hex digits, sometimes `-` and a digit",
    ),
    *_prefixes(
        "Doppler",
        (
            ("personal token", "dp.pt."),
            ("service token", "dp.st."),
            ("service account token", "dp.sa."),
            ("CLI token", "dp.ct."),
            ("SCIM token", "dp.scim."),
            ("audit token", "dp.audit."),
        ),
        "alnum",
        (40, 44),
    ),
    prefixed("HashiCorp Vault", "service token", "hvs.", "b64url", (90, None)),
    prefixed("HashiCorp Vault", "batch token", "hvb.", "b64url", (130, None)),
    TokenFormat(
        "HashiCorp Terraform Cloud",
        "API token",
        (".atlasv1.",),
        rf"{B}[A-Za-z0-9]{{14}}\.atlasv1\.[A-Za-z0-9_=\-]{{60,70}}{E}",
        "14 letters and digits, `.atlasv1.`, then 60 to 70 letters, digits, `_ = -`",
        lead=14,
    ),
    prefixed("Pulumi", "access token", "pul-", "hex", 40),
    prefixed("Infracost", "API token", "ico-", "alnum", 32),
    TokenFormat(
        "Harness",
        "personal or service account token",
        ("pat.", "sat."),
        rf"{B}(?:pat|sat)\.[A-Za-z0-9_\-]{{22}}\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{20}}{E}",
        "`pat.` or `sat.` then three dot-separated parts of 22, 24 and 20 characters",
    ),
    prefixed("Octopus Deploy", "API key", "API-", "upper", 26),
    prefixed("Prefect", "API key", "pnu_", "alnum", 36),
    TokenFormat(
        "Tailscale",
        "API, auth or OAuth client key",
        ("tskey-",),
        rf"{B}tskey-(?:api|auth|client|webhook|scim)-[A-Za-z0-9]{{6,}}-[A-Za-z0-9]{{20,}}{E}",
        "`tskey-`, its kind (`api`, `auth`, `client`...), then two runs of letters and digits",
    ),
    TokenFormat(
        "Defined Networking",
        "API token",
        ("dnkey-",),
        rf"{B}dnkey-[A-Za-z0-9=_\-]{{26}}-[A-Za-z0-9=_\-]{{52}}{E}",
        "`dnkey-` then parts of 26 and 52 letters, digits, `_ = -`",
    ),
    prefixed("Yandex Cloud", "API key", "AQVN", "b64url", (35, 38)),
    # --- observability ---
    prefixed("Grafana", "Cloud API token", "glc_", "b64pad", (32, None)),
    TokenFormat(
        "Grafana",
        "service account token",
        ("glsa_",),
        rf"{B}glsa_[A-Za-z0-9]{{32}}_[0-9a-fA-F]{{8}}{E}",
        "`glsa_`, 32 letters and digits, `_`, 8 hex digits",
    ),
    prefixed("Grafana", "API key (legacy)", "eyJrIjoi", "b64pad", (60, None)),
    TokenFormat(
        "Dynatrace",
        "API token",
        ("dt0c01.",),
        rf"{B}dt0c01\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{64}}{E}",
        "`dt0c01.`, 24 letters and digits, `.`, 64 letters and digits",
    ),
    prefixed("New Relic", "user API key", "NRAK-", "upper", 27),
    prefixed("New Relic", "insert key", "NRII-", "b64url", 32),
    prefixed("New Relic", "browser API token", "NRJS-", "hex", 19),
    prefixed("New Relic", "REST API key", "NRRA-", "hex", 42),
    TokenFormat(
        "Sentry",
        "organization auth token",
        ("sntrys_",),
        rf"{B}sntrys_eyJ[A-Za-z0-9+/=]{{20,}}_[A-Za-z0-9+/]{{43}}(?![A-Za-z0-9+/])",
        "`sntrys_`, a base64 JSON object, `_`, 43 base64 characters",
    ),
    prefixed("Sentry", "user auth token", "sntryu_", "hex", 64),
    # --- code hosting, CI/CD ---
    *_prefixes(
        "GitHub",
        (
            ("personal access token (classic)", "ghp_"),
            ("OAuth access token", "gho_"),
            ("user-to-server token", "ghu_"),
            ("server-to-server token", "ghs_"),
            ("refresh token", "ghr_"),
        ),
        "alnum",
        (30, None),
    ),
    prefixed("GitHub", "fine-grained personal access token", "github_pat_", "word", (40, None)),
    prefixed("GitLab", "personal, project or group access token", "glpat-", "b64url", _ANY),
    prefixed("GitLab", "runner authentication token", "glrt-", "b64url", _ANY),
    prefixed("GitLab", "deploy token", "gldt-", "b64url", _ANY),
    prefixed("GitLab", "pipeline trigger token", "glptt-", "hex", 40),
    prefixed("GitLab", "OAuth application secret", "gloas-", "b64url", (64, None)),
    prefixed("GitLab", "feed token", "glft-", "b64url", _ANY),
    prefixed("GitLab", "incoming mail token", "glimt-", "b64url", (25, None)),
    prefixed("GitLab", "SCIM token", "glsoat-", "b64url", _ANY),
    prefixed("GitLab", "feature flags client token", "glffct-", "b64url", _ANY),
    prefixed("GitLab", "agent for Kubernetes token", "glagent-", "b64url", (50, None)),
    TokenFormat(
        "GitLab",
        "CI/CD job token",
        ("glcbt-",),
        rf"{B}glcbt-[A-Za-z0-9]{{1,5}}_[A-Za-z0-9_\-]{{20,}}{E}",
        "`glcbt-`, up to 5 letters and digits, `_`, 20 or more letters, digits, `_`, `-`",
    ),
    prefixed("GitLab", "runner registration token", "GR1348941", "b64url", _ANY),
    prefixed("GitLab", "session cookie", "_gitlab_session=", "lower", 32),
    prefixed("Bitbucket", "app password", "ATBB", "alnum", (24, None)),
    prefixed("Bitbucket Data Center", "HTTP access token", "BBDC-", "b64", (40, None)),
    prefixed("Atlassian", "API token", "ATATT3", "dotted", (150, None)),
    prefixed("CircleCI", "personal API token", "CCIPAT_", "b64url", _ANY),
    prefixed("Buildkite", "API access token", "bkua_", "hex", 40),
    TokenFormat(
        "Sourcegraph",
        "access token",
        ("sgp_",),
        rf"{B}sgp_(?:(?:[0-9a-fA-F]{{16}}|local)_)?[0-9a-fA-F]{{40}}{E}",
        "`sgp_`, an optional instance id and `_`, then 40 hex digits",
    ),
    prefixed("JFrog Artifactory", "API key", "AKCp", "alnum", (69, None)),
    prefixed("JFrog Artifactory", "reference token", "cmVmd", "alnum", 59),
    prefixed("Docker Hub", "personal access token", "dckr_pat_", "b64url", (27, None)),
    prefixed("Docker Hub", "organization access token", "dckr_oat_", "b64url", (27, None)),
    *_prefixes(
        "SonarQube",
        (
            ("user token", "squ_"),
            ("project analysis token", "sqp_"),
            ("global analysis token", "sqa_"),
        ),
        "hex",
        40,
    ),
    # --- package registries ---
    prefixed("npm", "access token", "npm_", "alnum", 36),
    prefixed("PyPI", "upload token", "pypi-AgEIcHlwaS5vcmc", "b64url", (50, None)),
    prefixed("TestPyPI", "upload token", "pypi-AgENdGVzdC5weXBpLm9yZw", "b64url", (50, None)),
    prefixed("RubyGems", "API key", "rubygems_", "hex", 48),
    prefixed("NuGet", "API key", "oy2", "lower", 43),
    prefixed("crates.io", "API token", "cio", "alnum", 32),
    prefixed("Clojars", "deploy token", "CLOJARS_", "lower", 60),
    # --- productivity, SaaS ---
    prefixed("Linear", "API key", "lin_api_", "alnum", 40),
    prefixed("Linear", "OAuth token", "lin_oauth_", "hex", 64),
    prefixed("Notion", "integration token", "ntn_", "alnum", 46),
    prefixed("Notion", "integration token (legacy)", "secret_", "alnum", 43),
    prefixed("Figma", "personal access token", "figd_", "b64url", (40, None)),
    TokenFormat(
        "Postman",
        "API key",
        ("PMAK-",),
        rf"{B}PMAK-[0-9a-f]{{24}}-[0-9a-f]{{34}}{E}",
        "`PMAK-`, 24 hex digits, `-`, 34 hex digits",
    ),
    prefixed("ReadMe", "API key", "rdme_", "lower", 70),
    TokenFormat(
        "Mapbox",
        "secret access token",
        ("sk.eyJ",),
        rf"{B}sk\.eyJ[A-Za-z0-9_\-]{{10,}}\.[A-Za-z0-9_\-]{{20,}}{E}",
        "`sk.eyJ`, a base64 part, `.`, 20 or more letters, digits, `_`, `-`",
    ),
    prefixed("Typeform", "personal access token", "tfp_", "dotted", 59),
    prefixed("Frame.io", "API token", "fio-u-", "b64url", 64),
    *_prefixes(
        "Shopify",
        (
            ("admin API access token", "shpat_"),
            ("custom app access token", "shpca_"),
            ("private app access token", "shppa_"),
            ("app shared secret", "shpss_"),
        ),
        "HEX",
        32,
    ),
    TokenFormat(
        "HubSpot",
        "private app access token",
        ("pat-na1-", "pat-eu1-"),
        rf"{B}pat-(?:na|eu)1-{_UUID}{E}",
        "`pat-na1-` or `pat-eu1-` then a UUID",
    ),
    prefixed("Contentful", "personal access token", "CFPAT-", "b64url", 43),
    prefixed("Adobe", "client secret", "p8e-", "alnum", 32),
    prefixed("Adafruit IO", "key", "aio_", "alnum", 28),
    TokenFormat(
        "MaxMind",
        "license key",
        ("_mmk",),
        rf"{B}[A-Za-z0-9]{{6}}_[A-Za-z0-9]{{29}}_mmk{E}",
        "6 letters and digits, `_`, 29 letters and digits, `_mmk`",
        lead=36,
    ),
    prefixed("Settlemint", "application access token", "sm_aat_", "alnum", 16),
    prefixed("Settlemint", "personal access token", "sm_pat_", "alnum", 16),
    prefixed("Settlemint", "service access token", "sm_sat_", "alnum", 16),
    *_prefixes(
        "42 Intra",
        (("user client secret", "s-s4t2ud-"), ("app client secret", "s-s4t2af-")),
        "hex",
        64,
    ),
    # --- payments, finance ---
    *_prefixes(
        "Stripe",
        (
            ("live secret key", "sk_live_"),
            ("test secret key", "sk_test_"),
            ("live restricted key", "rk_live_"),
            ("test restricted key", "rk_test_"),
            ("production secret key", "sk_prod_"),
            ("production restricted key", "rk_prod_"),
        ),
        "alnum",
        (10, None),
    ),
    TokenFormat(
        "Stripe",
        "webhook signing secret",
        ("whsec_",),
        rf"{B}whsec_[A-Za-z0-9+/]{{24,}}={{0,2}}",
        "`whsec_` then 24 or more base64 characters",
    ),
    prefixed("Square", "access token", "EAAA", "b64url", (60, None)),
    prefixed("Square", "OAuth access token (legacy)", "sq0atp-", "b64url", 22),
    prefixed("Square", "OAuth application secret", "sq0csp-", "b64url", 43),
    TokenFormat(
        "Adyen",
        "API key",
        ("AQE",),
        rf"{B}AQE[A-Za-z0-9+/=_\-.]{{100,}}",
        "`AQE` then 100 or more base64 characters",
    ),
    TokenFormat(
        "Braintree",
        "access token",
        ("access_token$",),
        rf"{B}access_token\$(?:production|sandbox)\$[0-9a-z]{{16}}\$[0-9a-f]{{32}}{E}",
        "`access_token$`, `production` or `sandbox`, then ids of 16 and 32 characters",
    ),
    TokenFormat(
        "Plaid",
        "access token",
        ("access-production-", "access-sandbox-", "access-development-"),
        rf"{B}access-(?:production|sandbox|development)-{_UUID}{E}",
        "`access-` and its environment, then a UUID",
    ),
    prefixed("Flutterwave", "live secret key", "FLWSECK-", "HEX", 32),
    prefixed("Flutterwave", "test secret key", "FLWSECK_TEST-", "HEX", 32),
    *_prefixes(
        "Shippo",
        (("live API token", "shippo_live_"), ("test API token", "shippo_test_")),
        "HEX",
        40,
    ),
    *_prefixes("EasyPost", (("API key", "EZAK"), ("test API key", "EZTK")), "alnum", 54),
    *_prefixes(
        "Duffel",
        (("live API token", "duffel_live_"), ("test API token", "duffel_test_")),
        "b64url",
        43,
    ),
    # --- messaging, email ---
    *_prefixes(
        "Slack",
        (
            ("bot token", "xoxb-"),
            ("user token", "xoxp-"),
            ("legacy session token", "xoxs-"),
            ("legacy OAuth token", "xoxo-"),
            ("app-level token", "xapp-"),
            ("configuration refresh token", "xoxe-"),
            ("configuration access token (user)", "xoxe.xoxp-"),
            ("configuration access token (bot)", "xoxe.xoxb-"),
        ),
        "b64url",
        (15, None),
    ),
    # Legacy workspace tokens: an optional digit and `-`, then as few as 8 characters.
    *_prefixes(
        "Slack",
        (("workspace access token", "xoxa-"), ("workspace refresh token", "xoxr-")),
        "b64url",
        (8, None),
    ),
    TokenFormat(
        "Slack",
        "incoming webhook, workflow or trigger URL",
        ("hooks.slack.com/",),
        r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}",
        "`hooks.slack.com/services/`, `/workflows/` or `/triggers/` then the URL's secret path",
        lead=8,
    ),
    TokenFormat(
        "Discord",
        "webhook URL",
        ("discord.com/api/webhooks/", "discordapp.com/api/webhooks/"),
        r"(?:https?://)?(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{17,20}/[A-Za-z0-9_\-]{60,}",
        "`discord.com/api/webhooks/`, the channel id, then 60 or more letters, digits, `_`, `-`",
        lead=15,
    ),
    TokenFormat(
        "Telegram",
        "bot token",
        (":AA",),
        r"(?<![0-9A-Za-z_\-])[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}(?![A-Za-z0-9_\-])",
        "the bot's 8-10 digit id, `:AA`, then 33 letters, digits, `_`, `-`",
        lead=10,
    ),
    TokenFormat(
        "Microsoft Teams",
        "incoming webhook URL",
        (".webhook.office.com/webhookb2/",),
        r"https://[A-Za-z0-9\-]{1,40}\.webhook\.office\.com/webhookb2/[A-Za-z0-9@\-]{40,}/IncomingWebhook/[A-Za-z0-9]{32}/[A-Za-z0-9\-]{36}",
        "`https://…webhook.office.com/webhookb2/…/IncomingWebhook/` and its ids",
        lead=49,
    ),
    TokenFormat(
        "Zapier",
        "catch hook URL",
        ("hooks.zapier.com/hooks/catch/",),
        r"(?:https?://)?hooks\.zapier\.com/hooks/catch/[0-9]{3,}/[A-Za-z0-9]{5,}",
        "`hooks.zapier.com/hooks/catch/`, an account number and the hook's id",
        lead=8,
    ),
    TokenFormat(
        "Twilio SendGrid",
        "API key",
        ("SG.",),
        rf"{B}SG\.[A-Za-z0-9_\-]{{16,}}\.[A-Za-z0-9_\-]{{16,}}",
        "`SG.` then two dot-separated runs of 16 or more letters, digits, `_`, `-`",
    ),
    prefixed("Mailgun", "private API key", "key-", "hex", 32, words=("mailgun",)),
    prefixed("Mailgun", "public validation key", "pubkey-", "hex", 32, words=("mailgun",)),
    TokenFormat(
        "Mailchimp",
        "API key",
        ("-us",),
        r"(?<![A-Za-z0-9_\-])[0-9a-f]{32}-us[0-9]{1,2}(?![A-Za-z0-9_\-])",
        "32 hex digits, `-us` and the data centre's number",
        lead=32,
    ),
    TokenFormat(
        "Brevo (Sendinblue)",
        "API or SMTP key",
        ("xkeysib-", "xsmtpsib-"),
        rf"{B}x(?:keysib|smtpsib)-[0-9a-f]{{64}}-[A-Za-z0-9]{{16}}{E}",
        "`xkeysib-` or `xsmtpsib-`, 64 hex digits, `-`, 16 letters and digits",
    ),
    # --- social ---
    prefixed("Meta (Facebook)", "access token", "EAA", "alnum", (90, None)),
    prefixed("Instagram", "access token", "IGQV", "b64url", (100, None)),
    prefixed("X (Twitter)", "app bearer token", "AAAAAAAAAAAAAAAAAAAAA", "b64pad", (60, None)),
    prefixed("Dropbox", "short-lived access token", "sl.", "dotted", (130, None)),
    TokenFormat(
        "Dropbox",
        "long-lived access token",
        ("AAAAAAAAAA",),
        r"(?<![A-Za-z0-9_\-])[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=\-]{43}(?![A-Za-z0-9_\-])",
        "11 letters and digits, ten `A`s, 43 more characters",
        lead=11,
    ),
    # --- AI providers ---
    prefixed("OpenAI", "project API key", "sk-proj-", "b64url", _ANY),
    prefixed("OpenAI", "service account key", "sk-svcacct-", "b64url", _ANY),
    prefixed("OpenAI", "admin key", "sk-admin-", "b64url", _ANY),
    TokenFormat(
        "OpenAI and compatible providers (DeepSeek, Moonshot...)",
        "secret API key",
        ("sk-",),
        rf"{B}sk-[A-Za-z0-9]{{20,}}{E}",
        "`sk-` then 20 or more letters and digits",
    ),
    prefixed("Anthropic", "API key", "sk-ant-api03-", "b64url", _ANY),
    prefixed("Anthropic", "admin API key", "sk-ant-admin01-", "b64url", _ANY),
    prefixed("Anthropic", "key (other kinds)", "sk-ant-", "b64url", _ANY),
    prefixed("OpenRouter", "API key", "sk-or-v1-", "hex", 64),
    prefixed("Groq", "API key", "gsk_", "alnum", 52),
    prefixed("Replicate", "API token", "r8_", "alnum", 37),
    prefixed("Perplexity", "API key", "pplx-", "alnum", 48),
    prefixed("xAI", "API key", "xai-", "alnum", 80),
    prefixed("Hugging Face", "access token", "hf_", "alnum", (30, None)),
    prefixed("Hugging Face", "organization API token", "api_org_", "alpha", 34),
    TokenFormat(
        "LangSmith",
        "personal or service key",
        ("lsv2_pt_", "lsv2_sk_"),
        rf"{B}lsv2_(?:pt|sk)_[0-9a-f]{{32}}_[0-9a-f]{{10}}{E}",
        "`lsv2_pt_` or `lsv2_sk_`, 32 hex digits, `_`, 10 hex digits",
    ),
    prefixed("Pinecone", "API key", "pcsk_", "word", (40, None)),
    prefixed("ElevenLabs", "API key", "sk_", "hex", 48),
    TokenFormat(
        "Authress",
        "service client access key",
        ("sc_", "ext_", "scauth_", "authress_"),
        rf"{B}(?:sc|ext|scauth|authress)_[A-Za-z0-9]{{5,30}}\.[A-Za-z0-9]{{4,6}}\.acc[_\-]"
        r"[A-Za-z0-9\-]{10,32}\.[A-Za-z0-9+/_=\-]{30,120}(?![A-Za-z0-9+/_=\-])",
        "`sc_`, `ext_`, `scauth_` or `authress_`, the client id, `.`, the key id,"
        " `.acc_` and the account, `.` then 30 to 120 base64 characters",
    ),
    # --- secrets managers, keys ---
    TokenFormat(
        "1Password",
        "account secret key",
        ("A3-",),
        rf"{B}A3-[A-Z0-9]{{6}}-(?:[A-Z0-9]{{11}}|[A-Z0-9]{{6}}-[A-Z0-9]{{5}})-[A-Z0-9]{{5}}-[A-Z0-9]{{5}}-[A-Z0-9]{{5}}{E}",
        "`A3-` then six groups of capital letters and digits",
    ),
    prefixed("1Password", "service account token", "ops_eyJ", "b64pad", (250, None)),
    TokenFormat(
        "age",
        "secret key",
        ("AGE-SECRET-KEY-1",),
        rf"{B}AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{{58}}{E}",
        "`AGE-SECRET-KEY-1` then 58 bech32 characters",
    ),
    TokenFormat(
        "ClickHouse Cloud",
        "API secret key",
        ("4b1d",),
        rf"{B}4b1d[A-Za-z0-9]{{38}}{E}",
        "`4b1d` then 38 letters and digits",
    ),
)

# What ``credentials.py`` finds by code of its own: (provider, kind, how).
SPECIAL: tuple[tuple[str, str, str], ...] = (
    (
        "AWS",
        "secret access key",
        "40 base64 characters with upper, lower and a digit,"
        " after a word such as `aws_secret_access_key` or `secret`",
    ),
    (
        "Twilio",
        "API key or account SID",
        "`SK` or `AC` and 32 hex digits,"
        " after a word such as `twilio`, `account sid`, `auth token` or `api key`",
    ),
    ("Twilio", "auth token", "32 lower-case hex digits shortly after the word `twilio`"),
    ("any", "Bearer token", "the token after `Bearer`, 16 or more characters with a digit"),
    (
        "any",
        "password in a URL",
        "the `user:password` of `scheme://user:password@host`, unless the password is a stand-in",
    ),
    (
        "any",
        "JSON Web Token",
        "three dot-separated base64url parts whose first decodes to a JSON header with `alg`",
    ),
    (
        "any",
        "private key block",
        "`-----BEGIN … PRIVATE KEY-----` (PEM, PKCS#8, OpenSSH, PGP, encrypted)"
        " through its END line",
    ),
    ("PuTTY", "private key file", "`PuTTY-User-Key-File-` through its `Private-MAC` line"),
)

# The example values providers print in their own documentation: quoting them leaks nothing.
DOCUMENTED_EXAMPLES = frozenset({
    "AKIAIOSFODNN7EXAMPLE", "AKIAI44QH8DHBEXAMPLE", "ASIAIOSFODNN7EXAMPLE",
    "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY",
    "je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY",
    # Stripe's API reference and its older guides (test mode keys).
    "sk_" + "test_" + "4eC39HqLyjWDarjtT1zdp7dc", "sk_" + "test_" + "BQokikJOvBiI2HlWgH4olfQ2",
    # Telegram's Bot API manual.
    "110201543:" + "AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw",
})  # fmt: skip


def markdown() -> str:
    """``docs/credentials.md``: one row per format, from ``FORMATS`` and ``SPECIAL``."""
    labelled = [
        (f.provider, f.kind, f"{f.shape}, after a label naming {_either(f.names)}")
        for f in LABELLED
    ]
    rows = [(f.provider, f.kind, f.shape) for f in FORMATS] + labelled + list(SPECIAL)
    lines = [
        "# Credentials `credentials` recognises",
        "",
        "Generated from `worker/checks/sensitive/credential_formats.py`",
        "(`python -m turncheck.worker.checks.sensitive.credential_formats > docs/credentials.md`);",
        "a test keeps the two in step. Prefixes are matched in the case the provider",
        "issues them. Not counted: values masked or made of one character",
        "(`sk_live_****`, `ghp_XXXX…`), placeholders (`<YOUR_TOKEN>`, `${VAR}`, `REDACTED`),",
        "a prefix with too little after it, and the example values the providers print",
        "in their own documentation.",
        "",
        "A token without a prefix counts only after a label that names its provider (any",
        "case, its words joined or not: `NEW_RELIC`, `newrelic`) and says it is a secret",
        '(key, token, secret, password, credential, pat, auth…), ending in `=`, `:` or "is"',
        '(`ALGOLIA_API_KEY=…`, `"datadog_access_token": "…"`, "your airtable api key is …"),',
        "and when it looks random (letters with digits, both cases, or letters no one could",
        "read aloud).",
        "",
        f"{len(rows)} formats of {len({r[0] for r in rows})} providers.",
        "",
        "| provider | token | recognised by |",
        "|---|---|---|",
    ]
    lines += [f"| {p} | {k} | {s.replace('|', '&#124;')} |" for p, k, s in rows]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(markdown())
