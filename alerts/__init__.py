"""Alerts: a check whose latest results pass too rarely raises one notification a day,
by Slack or mail, to the organisation's administrators."""
