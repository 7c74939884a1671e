import CZlib
import NIOCore
