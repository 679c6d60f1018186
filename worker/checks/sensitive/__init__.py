"""Sensitive-data detectors, by the name a check file turns them on with.

| name | finds | from |
|---|---|---|
| ssn | US Social Security numbers, invalid ranges excluded | own rules |
| card | card numbers: issuer prefix, length, Luhn | python-stdnum (Luhn) |
| bank_account | account numbers (digits, or bank code and digits), labelled | own rules |
| routing_number | US ABA routing numbers, checksum, labelled | own rules (ABA checksum) |
| drivers_license | US, Canadian and UK licence formats, labelled | own rules |
| email | email addresses | own rules |
| phone | international, US and trunk-0 national phone numbers | phonenumbers |
| ip_address | IPv4 and IPv6 | stdlib ipaddress |
| iban | IBANs: country length and mod 97 | python-stdnum |
| date_of_birth | a date written as a birth date | own rules |
| credentials | provider keys and tokens, JWTs, PEM private keys | own rules |
| private_values | values the customer entered privately, by salted digest | stdlib hashlib |
| instructions_leak | a long passage copied from the instructions, through small edits | own rules |
| internal_links | local, private and internal-only addresses and domains | stdlib ipaddress |
"""

from turncheck.worker.checks.sensitive.bank import find_bank_account, find_routing_number
from turncheck.worker.checks.sensitive.cards import find_card
from turncheck.worker.checks.sensitive.context import Detector, DetectorContext
from turncheck.worker.checks.sensitive.credentials import find_credentials
from turncheck.worker.checks.sensitive.date_of_birth import find_date_of_birth
from turncheck.worker.checks.sensitive.drivers_license import find_drivers_license
from turncheck.worker.checks.sensitive.email import find_email
from turncheck.worker.checks.sensitive.iban import find_iban
from turncheck.worker.checks.sensitive.instructions_leak import find_instructions_leak
from turncheck.worker.checks.sensitive.internal_links import find_internal_links
from turncheck.worker.checks.sensitive.ip_address import find_ip_address
from turncheck.worker.checks.sensitive.phone import find_phone
from turncheck.worker.checks.sensitive.private_values import find_private_values
from turncheck.worker.checks.sensitive.ssn import find_ssn

DETECTORS: dict[str, Detector] = {
    "ssn": find_ssn,
    "card": find_card,
    "bank_account": find_bank_account,
    "routing_number": find_routing_number,
    "drivers_license": find_drivers_license,
    "email": find_email,
    "phone": find_phone,
    "ip_address": find_ip_address,
    "iban": find_iban,
    "date_of_birth": find_date_of_birth,
    "credentials": find_credentials,
    "private_values": find_private_values,
    "instructions_leak": find_instructions_leak,
    "internal_links": find_internal_links,
}

__all__ = ["DETECTORS", "Detector", "DetectorContext"]
