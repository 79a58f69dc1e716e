"""The hub launcher and its parts, standard library only: roster, accounts, install, mirror, link, settings, launch."""
