"""What a second way in may do (:mod:`companion.remote.commands`, once) and the ways in
over it: the serial console (:mod:`companion.remote.serial`) and the web page
(:mod:`companion.remote.web`). Nothing here is imported at start unless one is on."""
