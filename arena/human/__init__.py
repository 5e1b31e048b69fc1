"""What every human seat shares, whatever its screen: the input form built from the engine's request."""
